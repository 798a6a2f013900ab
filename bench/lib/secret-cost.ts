// What the secret guard (src/secrets/guard.ts) costs a store in the service's
// process, and how often it would refuse the benchmark's own corpus (its false
// positives: the corpus holds no credential).
import { createSecretGuard } from "../../src/secrets/guard.js";
import { generateFact } from "./corpus.js";
import { summarize } from "./stats.js";

export async function secretGuardCost(total: number): Promise<string> {
  const guard = createSecretGuard("refuse");
  const like = generateFact(0, total);
  const body = like.body.repeat(Math.ceil(4000 / like.body.length)).slice(0, 4000);
  const texts = (i: number) => [["name", `${like.name}-${i}`], ["description", like.description], ["body", body]] as const;
  for (let i = 0; i < 100; i++) await guard.check(texts(i));
  const samples: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t0 = performance.now();
    await guard.check(texts(i));
    samples.push(performance.now() - t0);
  }
  const scanned = Math.min(total, 10_000);
  let refused = 0;
  for (let i = 0; i < scanned; i++) {
    const f = generateFact(i, total);
    await guard.check([["name", f.name], ["description", f.description], ["body", f.body]]).catch(() => refused++);
  }
  const s = summarize(samples);
  return `Secret guard, in the service: p50 ${s.p50.toFixed(3)} ms, p95 ${s.p95.toFixed(3)} ms per store of a 4,000-character body; ${refused} of ${scanned.toLocaleString("en")} corpus facts refused (false positives).`;
}
