// The Dockerfile builds, checked without a Docker engine: each stage's steps run
// in a folder of their own that holds exactly what the stage copies (from the
// build context, honouring .dockerignore, or from an earlier stage), and the
// runtime stage then starts the service on an embedded database and answers
// /readyz. A step that reads a file the Dockerfile never copies fails here, as
// it would fail `docker compose up --build`.
//
// What stands in for what a Docker engine would do (the rest runs as written):
// - `npm ci` installs what package-lock.json names. The repository's own install
//   is that tree, so a stage's node_modules is a hard-linked copy of it, pruned
//   to production dependencies for `--omit=dev` (npm prune, offline).
// - `npm run build` runs with --noCheck: `npm test` type-checks the same sources.
// - RUN steps outside the app folder (links in /usr/local/bin, /data, chown) and
//   `npm cache clean` change the image's system, not the app: not run.
import { execFile, spawn } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const run = promisify(execFile);
const repo = new URL("../..", import.meta.url).pathname;

interface Stage {
  name: string;
  from: string;
  steps: Array<{ kind: "WORKDIR" | "COPY" | "RUN" | "ENV"; args: string }>;
}

/** The stages of a Dockerfile, with their instructions (continuation lines joined, comments dropped). */
function parseDockerfile(text: string): Stage[] {
  const lines = text.replace(/\\\n/g, " ").split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [keyword, ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    if (keyword === "FROM") {
      const [from, , name] = args.split(/\s+/);
      stages.push({ name: name ?? `stage${stages.length}`, from: from!, steps: [] });
    } else if (["WORKDIR", "COPY", "RUN", "ENV"].includes(keyword!)) stages.at(-1)!.steps.push({ kind: keyword as Stage["steps"][number]["kind"], args });
  }
  return stages;
}

/** Whether `.dockerignore` keeps `path` (relative to the context) out of the build context. */
function ignoredBy(patterns: string[], path: string): boolean {
  return patterns.some((p) => path === p || path.startsWith(`${p}/`) || (p.startsWith("*") && path.endsWith(p.slice(1))));
}

let work: string | undefined;
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

it("builds: every stage's steps run on exactly what the stage copies, and the image's service starts", async () => {
  const dockerfile = await readFile(join(repo, "Dockerfile"), "utf8");
  const ignore = (await readFile(join(repo, ".dockerignore"), "utf8").catch(() => "")).split("\n").map((l) => l.trim()).filter((l) => l && !l.startsWith("#"));
  const stages = parseDockerfile(dockerfile);
  // The base image: the current Node.js LTS line.
  for (const stage of stages) expect(stage.from).toMatch(/^node:24-/);
  work = await mkdtemp(join(tmpdir(), "am-docker-"));
  const roots = new Map<string, string>();
  const env: Record<string, string> = {};
  for (const stage of stages) {
    const root = join(work, stage.name);
    roots.set(stage.name, root);
    let dir = root;
    await mkdir(dir, { recursive: true });
    for (const step of stage.steps) {
      if (step.kind === "WORKDIR") {
        dir = join(root, step.args);
        await mkdir(dir, { recursive: true });
      } else if (step.kind === "ENV") {
        for (const m of step.args.matchAll(/([A-Z_]+)=(\S+)/g)) env[m[1]!] = m[2]!;
      } else if (step.kind === "COPY") {
        const parts = step.args.split(/\s+/);
        const from = parts[0]!.startsWith("--from=") ? parts.shift()!.slice("--from=".length) : undefined;
        const dest = parts.pop()!;
        for (const source of parts) {
          const origin = from ? join(roots.get(from)!, source) : join(repo, source);
          if (!from) expect(ignoredBy(ignore, source.replace(/^\.\//, "")), `${source} is copied but .dockerignore leaves it out of the context`).toBe(false);
          expect(await stat(origin).then(() => true, () => false), `COPY ${from ? `--from=${from} ` : ""}${source}: not there`).toBe(true);
          const target = dest.endsWith("/") || parts.length > 1 ? join(dir, dest, source.split("/").at(-1)!) : join(dest.startsWith("/") ? root : dir, dest);
          await cp(origin, target, { recursive: true });
        }
      } else {
        for (const command of step.args.split("&&").map((c) => c.trim())) {
          if (/^npm ci\b/.test(command)) {
            await run("cp", ["-al", join(repo, "node_modules"), join(dir, "node_modules")]);
            if (/--omit=dev/.test(command)) await run("npm", ["prune", "--omit=dev", "--ignore-scripts", "--offline", "--no-audit", "--no-fund"], { cwd: dir, timeout: 120_000 });
          } else if (command === "npm run build") {
            await run("npm", ["run", "build", "--", "--noCheck"], { cwd: dir, timeout: 300_000 });
          } else if (/^npm cache clean\b/.test(command) || /\/usr\/local\/bin|\/data\b|chown|chmod/.test(command)) {
            // The image's system, not the app.
          } else {
            throw new Error(`a RUN step this test does not know how to stand in for: ${command}`);
          }
        }
      }
    }
  }

  const app = join(roots.get(stages.at(-1)!.name)!, "app");
  // Production dependencies only: nothing the service needs is a devDependency.
  expect(await stat(join(app, "node_modules", "vitest")).then(() => true, () => false)).toBe(false);
  const version = await run(process.execPath, ["dist/cli/main.js", "--version"], { cwd: app });
  expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);

  // The image's command, on an embedded database in a folder of its own.
  const child = spawn(process.execPath, ["dist/cli/main.js", "serve"], {
    cwd: app,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env, HOST: "127.0.0.1", PORT: "0", AGENT_MEMORY_DATA_DIR: join(work, "data"), LOG_LEVEL: "warn", FIRST_START_OWNER: "false" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    let output = "";
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no banner within 60 s:\n${output}`)), 60_000);
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /serving MCP at (http:\/\/\S+)\/mcp/.exec(output);
        if (found) {
          clearTimeout(timer);
          resolve(found[1]!);
        }
      };
      child.stdout.on("data", read);
      child.stderr.on("data", read);
      child.on("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
    });
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  } finally {
    child.kill("SIGTERM");
  }
  // npm ci, a whole build and a start: a minute on a quiet machine, several beside the rest of the suite.
}, 300_000);
