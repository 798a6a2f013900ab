// The instrumentations tracing turns on: HTTP (the request's span, continuing
// a traceparent header), Express (the console's and the endpoints' routes) and
// Postgres (a span per statement: its text, never its parameter values).
/** Ops endpoints that scrapers and probes call all the time: no spans. */
const UNTRACED_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export async function tracedLibraries() {
  const [{ HttpInstrumentation }, { ExpressInstrumentation, ExpressLayerType }, { PgInstrumentation }] = await Promise.all([
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/instrumentation-express"),
    import("@opentelemetry/instrumentation-pg"),
  ]);
  return [
    new HttpInstrumentation({ ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? "").split("?")[0]!), ignoreOutgoingRequestHook: () => true }),
    // The route's handler only, not each middleware (the CSP, the body parser…) or router: a span per step would bury the route, and cost each call.
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE, ExpressLayerType.ROUTER] }),
    // Parameter values stay out (enhancedDatabaseReporting off); statements outside a request (replica checks,
    // upkeep) make no spans, nor does taking a pooled connection (one per statement: noise at a price).
    new PgInstrumentation({ enhancedDatabaseReporting: false, requireParentSpan: true, ignoreConnectSpans: true }),
  ];
}
