// /metrics with WORKERS > 1: every worker's registry added up by the primary
// process, which the worker that received the request asks over the cluster's IPC.
import cluster from "node:cluster";
import client from "prom-client";

/** A worker's request to the primary for the metrics of all workers added up, and the answer (WORKERS > 1). */
export const METRICS_MESSAGE = "agent-memory:metrics";
export interface MetricsReply {
  type: typeof METRICS_MESSAGE;
  id: number | undefined;
  text?: string;
  error?: string;
}

/**
 * In a cluster worker: this registry is the one the primary's AggregatorRegistry
 * collects, and /metrics (answered by whichever worker the connection landed on)
 * asks the primary for the sum of all. Counters add up; `agent_memory_worker_info`
 * keeps one line per worker (its number and pid), and
 * `agent_memory_worker_http_requests_total` shows how requests spread over them.
 */
export function workerMetrics(registry: client.Registry): { render: () => Promise<string>; countRequest: () => void } {
  client.AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary's collection requests only once an
  // AggregatorRegistry has been constructed in this process (that installs its listener).
  void new client.AggregatorRegistry();
  // cluster's own worker id: 1..N at start, a new number for a replaced worker (a new process).
  const worker = String(cluster.worker?.id ?? 0);
  new client.Gauge({ name: "agent_memory_worker_info", help: "One line per serving process (WORKERS > 1): its number and pid.", labelNames: ["worker", "pid"] as const, registers: [registry] }).set({ worker, pid: String(process.pid) }, 1);
  const perWorker = new client.Counter({ name: "agent_memory_worker_http_requests_total", help: "HTTP requests answered, by worker process (WORKERS > 1).", labelNames: ["worker"] as const, registers: [registry] });
  let nextId = 0;
  const pending = new Map<number, (reply: MetricsReply) => void>();
  process.on("message", (message: MetricsReply) => {
    if (message?.type === METRICS_MESSAGE && message.id !== undefined) pending.get(message.id)?.(message);
  });
  const render = () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("the primary process did not answer the metrics request within 5 s"));
      }, 5000);
      pending.set(id, (reply) => {
        clearTimeout(timer);
        pending.delete(id);
        if (reply.text !== undefined) resolve(reply.text);
        else reject(new Error(reply.error ?? "no metrics"));
      });
      process.send!({ type: METRICS_MESSAGE, id });
    });
  return { render, countRequest: () => perWorker.inc({ worker }) };
}
