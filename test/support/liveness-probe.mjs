// Liveness of a running service, seen from a process of its own (so that the
// load a test generates does not delay the probe's own clock): polls /healthz
// every 50 ms and one agent's whoami every 100 ms until stdin closes, then
// prints the latencies (ms) as one JSON line and exits. It first sends one of
// each unrecorded (the first fetch loads undici: ~0.6 s on a busy machine) and
// prints "ready" once both were answered.
//   node test/support/liveness-probe.mjs http://127.0.0.1:PORT TOKEN
const [base, token] = process.argv.slice(2);
const healthz = [];
const calls = [];
const failures = [];
let running = true;
process.stdin.on("end", () => (running = false));
process.stdin.resume();

async function poll(into, probe, pauseMs) {
  while (running) {
    const t0 = performance.now();
    try {
      const problem = await probe();
      if (problem) failures.push(problem);
    } catch (error) {
      failures.push(String(error?.cause ?? error));
    }
    into.push(Math.round(performance.now() - t0));
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}

let id = 0;
const checkHealthz = async () => {
  const res = await fetch(`${base}/healthz`);
  await res.text();
  return res.status === 200 ? undefined : `/healthz answered ${res.status}`;
};
const checkWhoami = async () => {
  const res = await fetch(`${base}/mcp`, {
    method: "POST",
    headers: { Accept: "application/json, text/event-stream", "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });
  const text = await res.text();
  return res.status === 200 && !text.includes('"isError":true') ? undefined : `whoami answered ${res.status}: ${text.slice(0, 200)}`;
};
await Promise.all([checkHealthz(), checkWhoami()]);
process.stdout.write("ready\n");
await Promise.all([poll(healthz, checkHealthz, 50), poll(calls, checkWhoami, 100)]);
process.stdout.write(`${JSON.stringify({ healthz, calls, failures })}\n`);
