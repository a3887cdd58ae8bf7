import { Page } from '../ui/layout.tsx';
import type { MonthFigures, PublicAccount } from './account.ts';

const monthName = (month: string): string => new Date(`${month}-01T00:00:00Z`).toLocaleDateString('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const n = (value: number): string => value.toLocaleString('en-GB');

/** One month as label and figure pairs: reads as well on a phone as on a desk. */
function Month(props: { m: MonthFigures; labels: Record<string, string> }) {
  const { m } = props;
  const purposes = Object.entries(m.searches_by_purpose);
  return (
    <section aria-labelledby={`m-${m.month}`}>
      <h3 id={`m-${m.month}`}>{monthName(m.month)}</h3>
      {/* Plain list, not the two-column facts grid: purpose labels run to 100 characters, wider than a phone. */}
      <dl>
        <dt>Cameras that reported</dt>
        <dd>{n(m.cameras)}</dd>
        <dt>Plate reads</dt>
        <dd>{n(m.reads)}</dd>
        <dt>Hits (alerts)</dt>
        <dd>{n(m.hits)}</dd>
        <dt>Hits confirmed by a person</dt>
        <dd>{n(m.confirmed_hits)}</dd>
        <dt>Hits found to be misreads</dt>
        <dd>{n(m.misread_hits)}</dd>
        <dt>Searches</dt>
        <dd>
          {n(m.searches)}
          {purposes.length > 0 ? (
            <ul aria-label="Searches by purpose">
              {purposes.map(([code, count]) => (
                <li>{`${props.labels[code] ?? code}: ${n(count)}`}</li>
              ))}
            </ul>
          ) : null}
        </dd>
        <dt>Legal holds placed</dt>
        <dd>{n(m.legal_holds_placed)}</dd>
        <dt>Evidence exports</dt>
        <dd>{n(m.evidence_exports)}</dd>
      </dl>
    </section>
  );
}

/** The public account (docs/transparency.md): no sign-in, no navigation, no script. */
export function TransparencyPage(props: { account: PublicAccount }) {
  const a = props.account;
  return (
    <Page title="Public account">
      <p>
        What this plate-reader hub keeps, why it may be searched, and how much it was used each month. Figures are counts only: no plates, people or cases.
        Months are calendar months in UTC. The same figures as JSON: <a href="/transparency.json">/transparency.json</a>.
      </p>
      <p>{`Figures as of ${a.generated_at.slice(0, 16).replace('T', ' ')} UTC (computed at most once a minute).`}</p>
      <h2>How long records are kept</h2>
      {/* Not the two-column facts grid: tier names run to 50 characters, wider than a phone's column. */}
      <dl>
        {a.retention.tiers.map((t) => (
          <>
            <dt>{t.tier}</dt>
            <dd>{t.kept}</dd>
          </>
        ))}
      </dl>
      <h2>Purposes a search may be made for</h2>
      {a.purposes.length === 0 ? (
        <p>No purposes are set: no one can search.</p>
      ) : (
        <ul>
          {a.purposes.map((p) => (
            <li>{p.case_number_required ? `${p.label} (a case number is required)` : p.label}</li>
          ))}
        </ul>
      )}
      <h2>Month by month</h2>
      {[...a.months].reverse().map((m) => (
        <Month m={m} labels={a.purpose_labels} />
      ))}
    </Page>
  );
}
