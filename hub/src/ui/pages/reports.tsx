import type { SessionUser } from '../../auth/middleware.ts';
import { BarChart, Sparkline } from '../../reports/charts.tsx';
import { heartbeatIntervalSeconds } from '../../collectors/heartbeat-interval.ts';
import { heartbeatShare } from '../../reports/heartbeat-share.ts';
import { healthWindowStart, type HealthHour, type HourlyCount } from '../../reports/queries.ts';
import { fillSeries, groupBy } from '../../reports/series.ts';
import { misreadRate, type MisreadReport, type MisreadRow } from '../../reports/misreads.ts';
import { Page } from '../layout.tsx';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const hourLabel = (at: number): string => new Date(at).toISOString().slice(11, 13);
const dayLabel = (at: number): string => new Date(at).toISOString().slice(8, 10);

export interface ReportsData {
  now: Date;
  detections: HourlyCount[];
  alerts: Array<{ day: number; count: number }>;
  misreads: MisreadReport;
  /** Admins only. */
  health?: HealthHour[];
  heartbeatSeconds: number;
}

/** Charts people would rather look at than read (server-side SVG; the figures are in tables too). */
export function ReportsPage(props: { user: SessionUser; data: ReportsData }) {
  const { now, detections, alerts, health } = props.data;
  const total = fillSeries(
    detections.map((d) => ({ at: d.hour, value: d.count })),
    now,
    HOUR_MS,
    24,
  );
  const perCollector = groupBy(
    detections,
    (d) => d.siteName,
    (rows) => rows.reduce((n, r) => n + r.count, 0),
  );
  const alertDays = fillSeries(
    alerts.map((a) => ({ at: a.day, value: a.count })),
    now,
    DAY_MS,
    30,
  );
  const expectedPerHour = 3600 / props.data.heartbeatSeconds;
  return (
    <Page title="Reports" user={props.user} path="/reports">
      <section aria-labelledby="det-title">
        <h2 id="det-title">Detections per hour, last 24 hours (UTC)</h2>
        <BarChart id="det" title="Detections per hour, all collectors" points={total} label={hourLabel} describe={(p) => `${hourLabel(p.at)}:00 ${p.value}`} />
        <table>
          <caption>Per collector (most detections first)</caption>
          <thead>
            <tr>
              <th scope="col">Site</th>
              <th scope="col">Detections, 24 h</th>
              <th scope="col">Per hour</th>
            </tr>
          </thead>
          <tbody>
            {perCollector.map((g) => (
              <tr>
                <td>{g.key}</td>
                <td>{g.rows.reduce((n, r) => n + r.count, 0)}</td>
                <td>
                  <Sparkline
                    label={`${g.key}: detections per hour over the last 24 hours`}
                    points={fillSeries(
                      g.rows.map((r) => ({ at: r.hour, value: r.count })),
                      now,
                      HOUR_MS,
                      24,
                    )}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section aria-labelledby="alerts-title">
        <h2 id="alerts-title">Alerts per day, last 30 days (UTC)</h2>
        <BarChart
          id="alerts"
          title="Alerts per day"
          points={alertDays}
          label={dayLabel}
          describe={(p) => `${new Date(p.at).toISOString().slice(0, 10)} ${p.value}`}
        />
      </section>
      <section aria-labelledby="misreads-title">
        <h2 id="misreads-title">{`Misread rates, last ${props.data.misreads.days} days`}</h2>
        <p>Of the alerts an operator verified, the share marked misread. A camera near the top misreads: check its focus, angle and lighting.</p>
        <MisreadTable id="misreads-cameras" caption="Per camera (highest misread rate first)" first="Camera" rows={props.data.misreads.cameras} />
        <MisreadTable id="misreads-lists" caption="Per watchlist (highest misread rate first)" first="Watchlist" rows={props.data.misreads.watchlists} />
      </section>
      {health ? (
        <section aria-labelledby="health-title">
          <h2 id="health-title">Collector health, last 7 days</h2>
          <table>
            <caption>{`Heartbeats received against those expected since each collector was claimed (${expectedPerHour} an hour by default)`}</caption>
            <thead>
              <tr>
                <th scope="col">Site</th>
                <th scope="col">Heartbeats received</th>
                <th scope="col">Deepest upload queue</th>
                <th scope="col">Fewest cameras online</th>
                <th scope="col">Heartbeats per hour</th>
              </tr>
            </thead>
            <tbody>
              {groupBy(
                health,
                (h) => h.siteName,
                () => 0,
              ).map((g) => {
                const received = g.rows.reduce((n, r) => n + r.heartbeats, 0);
                const first = g.rows.reduce((m, r) => (r.hour < m.hour ? r : m));
                const share = heartbeatShare({
                  received,
                  windowStart: healthWindowStart(now),
                  claimedAt: first.claimedAt,
                  firstHour: first.hour,
                  now: now.getTime(),
                  intervalSeconds: heartbeatIntervalSeconds({ heartbeatSeconds: props.data.heartbeatSeconds }, first.config),
                });
                const cameras = g.rows.reduce((m, r) => Math.min(m, r.minCamerasOnline), Infinity);
                const totalCameras = g.rows.find((r) => r.camerasTotal !== null)?.camerasTotal;
                return (
                  <tr>
                    <td>{g.key}</td>
                    <td>{`${share.percent} % (${received} of ${share.expected})`}</td>
                    <td>{g.rows.reduce((m, r) => Math.max(m, r.maxQueueDepth), 0)}</td>
                    <td>{totalCameras ? `${cameras} of ${totalCameras}` : String(cameras)}</td>
                    <td>
                      <Sparkline
                        label={`${g.key}: heartbeats per hour over 7 days`}
                        points={fillSeries(
                          g.rows.map((r) => ({ at: r.hour, value: r.heartbeats })),
                          now,
                          HOUR_MS,
                          168,
                        )}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      ) : null}
    </Page>
  );
}

function MisreadTable(props: { id: string; caption: string; first: string; rows: MisreadRow[] }) {
  return (
    <table id={props.id}>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">{props.first}</th>
          <th scope="col">Alerts</th>
          <th scope="col">Confirmed</th>
          <th scope="col">Misread</th>
          <th scope="col">Misread rate</th>
        </tr>
      </thead>
      <tbody>
        {props.rows.length === 0 ? (
          <tr>
            <td colspan={5}>No alerts in this period.</td>
          </tr>
        ) : (
          props.rows.map((r) => {
            const rate = misreadRate(r);
            return (
              <tr>
                <td>{r.label}</td>
                <td>{r.alerts}</td>
                <td>{r.confirmed}</td>
                <td>{r.misread}</td>
                <td>{rate === null ? 'none verified' : `${Math.round(rate * 100)} %`}</td>
              </tr>
            );
          })
        )}
      </tbody>
    </table>
  );
}
