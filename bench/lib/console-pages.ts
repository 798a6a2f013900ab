// The console's pages as a person's browser gets them: signed in with a human
// agent's token, then keep-alive GETs timed (server time plus a loopback round trip).
import { summarize, type Summary } from "./stats.js";

export async function signIn(base: string, token: string): Promise<string> {
  const form = await fetch(`${base}/console/sign-in`);
  const formCookie = (form.headers.getSetCookie().find((c) => c.startsWith("am_console_signin=")) ?? "").split(";")[0]!;
  const secret = /name="form" value="([^"]+)"/.exec(await form.text())?.[1] ?? "";
  const res = await fetch(`${base}/console/sign-in`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: base, Cookie: formCookie, "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ form: secret, token }).toString(),
  });
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("am_console="));
  if (res.status !== 303 || !cookie) throw new Error(`console sign-in failed: ${res.status} ${await res.text()}`);
  return cookie.split(";")[0]!;
}

export async function timePage(base: string, cookie: string, n: number, path: (i: number) => string): Promise<Summary & { bytes: number }> {
  const samples: number[] = [];
  let bytes = 0;
  for (let i = -Math.min(20, n); i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path(Math.abs(i))}`, { headers: { Cookie: cookie } });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${path(i)} answered ${res.status}`);
    if (i >= 0) {
      samples.push(performance.now() - t0);
      bytes = body.length;
    }
  }
  return { ...summarize(samples), bytes };
}
