// Where the test Postgres is: TEST_DATABASE_URL (any database on the server), by
// default the local trust-auth server.
const base = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

export function adminUrl(): string {
  return base;
}

export function databaseUrl(name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}
