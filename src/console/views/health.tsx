// The Health page: the memory-health figures of /metrics for the scopes the
// viewer may read, with two small charts drawn on the server as SVG (no
// script, nothing from another origin): the review backlog over the last 30
// days and reviews per agent.
import type { DaySample } from "../../facts/index.js";
import type { HealthFigures } from "../../metrics.js";
import { Layout, type PageContext } from "./layout.js";

export const HEALTH_DAYS = 30;

const duration = (seconds: number) =>
  seconds >= 86_400 ? `${Math.floor(seconds / 86_400)} d ${Math.floor((seconds % 86_400) / 3600)} h` : seconds >= 3600 ? `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min` : `${Math.floor(seconds / 60)} min`;

type Day = DaySample | { day: string; missing: true };

function BacklogChart({ days }: { days: Day[] }) {
  const width = 720;
  const height = 160;
  const max = Math.max(1, ...days.map((d) => ("missing" in d ? 0 : d.drafts)));
  const bar = width / days.length;
  const described = days.filter((d): d is DaySample => !("missing" in d));
  return (
    <figure>
      <svg viewBox={`0 0 ${width} ${height + 20}`} role="img" aria-labelledby="backlog-title" class="chart">
        <title id="backlog-title">{`Drafts waiting for review, one bar a day over the last ${days.length} days; most: ${max}`}</title>
        {days.map((d, i) =>
          "missing" in d ? (
            <rect x={i * bar + 1} y={height - 2} width={bar - 2} height={2} class="chart-missing">
              <title>{`${d.day}: no reading`}</title>
            </rect>
          ) : (
            <rect x={i * bar + 1} y={height - (d.drafts / max) * height} width={bar - 2} height={(d.drafts / max) * height} class="chart-bar">
              <title>{`${d.day}: ${d.drafts} drafts waiting, ${d.stale} stale facts`}</title>
            </rect>
          ),
        )}
        <text x="0" y={height + 16} class="chart-label">
          {days[0]?.day}
        </text>
        <text x={width} y={height + 16} text-anchor="end" class="chart-label">
          {days[days.length - 1]?.day}
        </text>
      </svg>
      <figcaption>
        Drafts waiting for review: one sample a day, written by the service when it starts and then within the hour after midnight; today's bar is the reading in the table above.{" "}
        {described.length === 0 ? "No samples yet." : `Most: ${max}.`}
      </figcaption>
    </figure>
  );
}

/** An agent's name as the chart shows it: at most `max` characters (the whole name is in the bar's title). */
const shortName = (name: string, max = 22) => (name.length > max ? `${name.slice(0, max - 1)}…` : name);

function ReviewsChart({ reviews }: { reviews: Array<{ agent: string; confirmed: number; deprecated: number }> }) {
  if (reviews.length === 0) return <p>No reviews in the last {HEALTH_DAYS} days.</p>;
  const max = Math.max(...reviews.map((r) => r.confirmed + r.deprecated));
  const row = 24;
  const legend = 26;
  const labelWidth = 180;
  // Room on the right for the figures after the longest bar ("999 confirmed, 99 deprecated").
  const valueWidth = 200;
  const width = 720;
  const scale = (n: number) => (n / max) * (width - labelWidth - valueWidth);
  return (
    <svg viewBox={`0 0 ${width} ${legend + reviews.length * row}`} role="img" aria-labelledby="reviews-title" class="chart">
      <title id="reviews-title">{`Reviews per agent over the last ${HEALTH_DAYS} days: confirmed and deprecated`}</title>
      <g class="chart-legend">
        <rect x={labelWidth} y={4} width={12} height={12} class="chart-bar" />
        <text x={labelWidth + 18} y={14} class="chart-label">
          confirmed
        </text>
        <rect x={labelWidth + 110} y={4} width={12} height={12} class="chart-bar-alt" />
        <text x={labelWidth + 128} y={14} class="chart-label">
          deprecated
        </text>
      </g>
      {reviews.map((r, i) => {
        const y = legend + i * row;
        return (
          <g>
            <title>{`${r.agent}: ${r.confirmed} confirmed, ${r.deprecated} deprecated`}</title>
            <text x={labelWidth - 8} y={y + 16} text-anchor="end" class="chart-label">
              {shortName(r.agent)}
            </text>
            <rect x={labelWidth} y={y + 4} width={scale(r.confirmed)} height={row - 8} class="chart-bar" />
            <rect x={labelWidth + scale(r.confirmed)} y={y + 4} width={scale(r.deprecated)} height={row - 8} class="chart-bar-alt" />
            <text x={labelWidth + scale(r.confirmed + r.deprecated) + 6} y={y + 16} class="chart-label">
              {`${r.confirmed} confirmed, ${r.deprecated} deprecated`}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

export function HealthPage(props: { ctx: PageContext; scopes: HealthFigures[]; days: Day[]; reviews: Array<{ agent: string; confirmed: number; deprecated: number }> }) {
  const { ctx, scopes, days, reviews } = props;
  return (
    <Layout ctx={ctx} title="Health">
      <h1>Memory health</h1>
      <p>The figures of <code>/metrics</code> for the scopes you may read (docs/operations.md, "Memory health").</p>
      <table data-health>
        <thead>
          <tr>
            <th scope="col">Scope</th>
            <th scope="col">Drafts waiting</th>
            <th scope="col">Oldest waiting</th>
            <th scope="col">Stale facts</th>
          </tr>
        </thead>
        <tbody>
          {scopes.length === 0 && (
            <tr>
              <td colSpan={4}>No drafts waiting and no stale facts.</td>
            </tr>
          )}
          {scopes.map((s) => (
            <tr>
              <td>{s.scope}</td>
              <td>{s.drafts}</td>
              <td>{s.drafts > 0 ? duration(s.oldestDraftSeconds) : "–"}</td>
              <td>{s.stale}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Review backlog, last {HEALTH_DAYS} days</h2>
      <BacklogChart days={days} />
      <h2>Reviews per agent, last {HEALTH_DAYS} days</h2>
      <ReviewsChart reviews={reviews} />
    </Layout>
  );
}
