// Sign-in: a human agent's token is exchanged for a console session.
import { BASE, Layout, Notice } from "./layout.js";

const SIGN_IN_NOTES: Record<string, { kind: "info" | "error"; text: string }> = {
  "signed-out": { kind: "info", text: "You are signed out." },
  ended: { kind: "info", text: "Your console session has ended (it expired, or its token was revoked or its agent disabled). Sign in again." },
  required: { kind: "info", text: "Sign in to use the console." },
};

export function SignInPage({ formSecret, note, error }: { formSecret: string; note?: string | undefined; error?: string | undefined }) {
  const known = note ? SIGN_IN_NOTES[note] : undefined;
  return (
    <Layout ctx={{}} title="Sign in">
      <section class="narrow">
        <h1>Sign in</h1>
        {known && <Notice kind={known.kind}>{known.text}</Notice>}
        {error && <Notice kind="error">{error}</Notice>}
        <form method="post" action={`${BASE}/sign-in`}>
          <input type="hidden" name="form" value={formSecret} />
          <label for="token">Token of a human agent</label>
          <input id="token" name="token" type="password" autocomplete="off" required autofocus spellcheck={false} />
          <button type="submit">Sign in</button>
        </form>
        <p class="hint">
          Use the token printed at first start for the agent <code>owner</code>, or one issued to another agent of kind <code>human</code>. Agent
          tokens (kind <code>agent</code>) are for MCP clients and cannot sign in here.
        </p>
      </section>
    </Layout>
  );
}
