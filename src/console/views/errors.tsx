import { Layout, Notice, type PageContext } from "./layout.js";

export function ErrorPage({ ctx, title, message }: { ctx: PageContext; title: string; message: string }) {
  return (
    <Layout ctx={ctx} title={title}>
      <h1>{title}</h1>
      <Notice kind="error">{message}</Notice>
    </Layout>
  );
}
