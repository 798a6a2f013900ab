// What the embedded database does to the folder AGENT_MEMORY_DATA_DIR names:
// it creates a new one private (0700), tightens an empty one or its own
// earlier folder, and leaves anything else exactly as it is, with an error
// that says what to do: a folder holding other files, a link (the setting
// must name the folder itself), a file.
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareDataDir } from "../../src/db/embedded/data-dir-modes.js";

describe("the embedded database's folder", () => {
  let root: string;
  const mode = async (path: string) => (await stat(path)).mode & 0o777;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "am-data-dir-"));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("creates a new folder 0700, and tightens an empty one or an earlier embedded database", async () => {
    await prepareDataDir(join(root, "new"));
    expect(await mode(join(root, "new"))).toBe(0o700);
    await mkdir(join(root, "empty"), { mode: 0o755 });
    await chmod(join(root, "empty"), 0o755);
    await prepareDataDir(join(root, "empty"));
    expect(await mode(join(root, "empty"))).toBe(0o700);
    await mkdir(join(root, "earlier"));
    await writeFile(join(root, "earlier", "PG_VERSION"), "17\n");
    await chmod(join(root, "earlier"), 0o755);
    await prepareDataDir(join(root, "earlier"));
    expect(await mode(join(root, "earlier"))).toBe(0o700);
  });

  it("leaves a folder holding other files as it is, and says so", async () => {
    const foreign = join(root, "foreign");
    await mkdir(foreign);
    await writeFile(join(foreign, "notes.txt"), "mine");
    await chmod(foreign, 0o755);
    await expect(prepareDataDir(foreign)).rejects.toThrow(/holds other files \(notes\.txt\) and no embedded database; it is left as it is\. Point AGENT_MEMORY_DATA_DIR at a new or empty folder/);
    expect(await mode(foreign)).toBe(0o755);
  });

  it("refuses a link without touching what it points at, and a file", async () => {
    const target = join(root, "target");
    await mkdir(target);
    await chmod(target, 0o755);
    await symlink(target, join(root, "link"));
    await expect(prepareDataDir(join(root, "link"))).rejects.toThrow(new RegExp(`is a link \\(to ${target}\\), which is left as it is\\. Give the folder's own path instead`));
    expect(await mode(target)).toBe(0o755);
    await writeFile(join(root, "a-file"), "x");
    await expect(prepareDataDir(join(root, "a-file"))).rejects.toThrow(/is not a folder/);
  });
});
