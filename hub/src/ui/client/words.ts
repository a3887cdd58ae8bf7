/**
 * The hub's refusals in a person's words. The API writes its messages for programs: a 400
 * names the query parameter or body field it is about and may point at a route, e.g.
 * `purpose: a purpose code (GET /api/v1/purposes lists them), e.g. stolen_vehicle`. A page
 * shows instead which field of its form to fix, by the name the form gives it. Pure (no
 * DOM): api.ts applies it to every error, so no page shows the raw text.
 */

/** What a person should do, for the fields whose fix is always the same. */
const ADVICE: Readonly<Record<string, string>> = {
  purpose: 'Choose a purpose from the list: every lookup is recorded with why it was made.',
  case_number: 'Check the case number: this purpose needs one, up to 64 characters.',
  collector_id: 'Choose a site from the list.',
};

/** The form's name for each field the dashboard sends; others are spelt out from the field. */
const LABELS: Readonly<Record<string, string>> = {
  reason: 'the note',
  plate: 'the plate',
  plate_match: 'the kind of match',
  start_date: 'the start of the time range',
  end_date: 'the end of the time range',
  min_confidence: 'the minimum confidence',
  per_page: 'the page size',
  page: 'the page number',
  lat_min: 'the area (latitude)',
  lat_max: 'the area (latitude)',
  lon_min: 'the area (longitude)',
  lon_max: 'the area (longitude)',
  window_minutes: 'the time window',
  min_occasions: 'the number of occasions',
  date: 'the day',
  timezone: 'the time zone',
  tz: 'the time zone',
  since: 'the start of the time range',
  until: 'the end of the time range',
  notes: 'the notes',
  name: 'the name',
  priority: 'the priority',
  url: 'the address',
  schedule: 'the schedule',
};

/** `(GET /api/v1/purposes lists them)`: a route is for programs. */
const ROUTE_NOTE = /\s*\((?:GET|POST|PUT|PATCH|DELETE) \/[^)]*\)/g;
/** `field: why` or `field.0.sub: why`, as the hub's validators write them (platform/http/validate.ts). */
const FIELD_FIRST = /^([a-z][a-z0-9_]*(?:\.[a-z0-9_]+)*): (.+)$/s;

const labelOf = (field: string): string => LABELS[field] ?? `the ${field.replace(/_/g, ' ')}`;

const sentence = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export function forPeople(message: string): string {
  const text = message.replace(/^invalid request body: /, '').replace(ROUTE_NOTE, '');
  const named = FIELD_FIRST.exec(text);
  if (!named) return sentence(text);
  const [, path = '', why = ''] = named;
  // The most specific name in the path: `entries.3.notes` is about notes.
  const field =
    path
      .split('.')
      .filter((step) => !/^\d+$/.test(step))
      .at(-1) ?? path;
  const advice = ADVICE[field];
  if (advice) return advice;
  if (why === 'not a parameter of this request') return 'This page sent something the hub does not know: reload the page and try again.';
  const reason = why.charAt(0).toLowerCase() + why.slice(1);
  return `Check ${labelOf(field)}: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}`;
}
