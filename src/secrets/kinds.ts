// What a hit is called: the kinds of credential the guard names in its refusal
// and counts in /metrics (agent_memory_secrets_refused_total{kind}), by the
// secretlint message id that found it; and the project's allow-list.

export interface SecretKind {
  /** The metrics label. */
  id: string;
  /** How the refusal names it: "body holds what looks like <label>". */
  label: string;
}

const kind = (id: string, label: string): SecretKind => ({ id, label });
const AWS = kind("aws", "an AWS access key");
const GCP = kind("gcp", "a GCP service-account key");
const NPM = kind("npm", "an npm token");
const SLACK = kind("slack", "a Slack token or webhook URL");
const CONNECTION = kind("connection_string", "a database URL with a password");
const PRIVATE_KEY = kind("private_key", "a private key (PEM)");

const BY_MESSAGE_ID: Record<string, SecretKind> = {
  AWSAccessKeyID: AWS,
  AWSSecretAccessKey: AWS,
  PrivateKeyJSON: GCP,
  PrivateKeyP12: GCP,
  PackageJSON_xOauthToken: NPM,
  Npmrc_authToken: NPM,
  NPM_ACCESS_TOKEN: NPM,
  SLACK_TOKEN: SLACK,
  IncomingWebhook: SLACK,
  BasicAuth: kind("basic_auth_url", "a URL with a user name and password"),
  OPENAI_TOKEN: kind("openai", "an OpenAI API key"),
  ANTHROPIC_API_KEY: kind("anthropic", "an Anthropic API key"),
  LINEAR_API_TOKEN: kind("linear", "a Linear API key"),
  PrivateKey: PRIVATE_KEY,
  PRIVATE_KEY_ANY: PRIVATE_KEY,
  SENDGRID_KEY: kind("sendgrid", "a SendGrid API key"),
  SHOPIFY_KEY: kind("shopify", "a Shopify token"),
  GITHUB_TOKEN: kind("github", "a GitHub token"),
  OPS_TOKEN: kind("onepassword", "a 1Password service-account token"),
  MongoDBConnection: CONNECTION,
  MySQLConnection: CONNECTION,
  PostgreSQLConnection: CONNECTION,
  GITLAB_TOKEN: kind("gitlab", "a GitLab token"),
  STRIPE_KEY: kind("stripe", "a Stripe secret key"),
  JWT: kind("jwt", "a JSON Web Token"),
  AZURE_KEY: kind("azure", "an Azure key or client secret"),
  PASSWORD_ASSIGNMENT: kind("password", "a password or key assigned a generated value"),
  OWN_TOKEN: kind("agent_memory", "a token of this service"),
  GOOGLE_API_KEY: kind("google", "a Google API key"),
  HUGGINGFACE_TOKEN: kind("huggingface", "a Hugging Face token"),
  AUTHORIZATION_HEADER: kind("authorization_header", "an Authorization header's credential (Bearer or Basic)"),
};
const OTHER = kind("other", "a credential");

export function kindOf(messageId: string | undefined): SecretKind {
  return (messageId && BY_MESSAGE_ID[messageId]) || OTHER;
}

/** Every kind the guard can name (the metrics are initialised with them at zero). */
export const SECRET_KINDS: string[] = [...new Set([...Object.values(BY_MESSAGE_ID), OTHER].map((k) => k.id))];

// Issuers' public prefixes: naming one helps the agent find what it pasted
// without the refusal repeating any of the secret.
const PREFIX = /^(?:am[kcrs]_|AIza|hf_|github_pat_|gh[pousr]_|gl[a-z]{2,6}-|xox[a-z]-|sk-ant-|sk-proj-|sk-svcacct-|sk-admin-|[sr]k_(?:live|test)_|AKIA|ASIA|SG\.|shp(?:at|ca|pa|ss)_|lin_api_|ops_|npm_|eyJ|-----BEGIN [A-Z ]*PRIVATE KEY-----|[a-z][a-z0-9+.-]*:\/\/)/;

export function visiblePrefix(value: string): string | undefined {
  return PREFIX.exec(value)?.[0];
}

// Values that match a rule of ours (extra-rules.ts) but are published
// placeholders, not credentials: the keys of AWS's own documentation and SDK
// samples (the preset ignores them in its AWS rule already). A hit is allowed
// only when it is exactly one of them: a text that merely contains one (a real
// key with the example line added) is not.
const ALLOWED_VALUES = new Set(["AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"]);

export function isAllowed(value: string): boolean {
  return ALLOWED_VALUES.has(value);
}
