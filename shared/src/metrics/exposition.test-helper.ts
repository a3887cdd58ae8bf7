/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests of
 * `/metrics` on both sides: every line must match the grammar (HELP, TYPE, comment, blank or
 * sample), a family's TYPE comes before its samples and once, sample names belong to their
 * family (histograms: `_bucket` with `le`, `_sum`, `_count`), buckets are cumulative and the
 * `+Inf` bucket equals `_count`. Any violation throws with the line number.
 */
export interface Exposition {
  /** Family name → its TYPE. */
  types: Map<string, string>;
  /** `name{a="1",b="2"}` (labels sorted) → value. */
  samples: Map<string, number>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
// NaN in any case: Prometheus reads sample values with Go's ParseFloat, which takes `nan` in
// any case, and Node's client writes `Nan` for a figure with no sample yet (the event loop delay's mean).
const NUMBER = '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?Inf|[Nn][Aa][Nn])';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL}=${LABEL_VALUE})(?:,${LABEL}=${LABEL_VALUE})*,?)?\\})? (${NUMBER})(?: (-?\\d+))?$`);
const HELP = new RegExp(`^# HELP (${NAME}) (?:[^\\\\\\n]|\\\\[\\\\n])*$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const PAIR = new RegExp(`(${LABEL})=(${LABEL_VALUE})`, 'g');

export function sampleKey(name: string, labels: Record<string, string> = {}): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return pairs.length === 0 ? name : `${name}{${pairs.join(',')}}`;
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.endsWith(suffix) ? name.slice(0, -suffix.length) : undefined;
    if (base !== undefined && (types.get(base) === 'histogram' || (types.get(base) === 'summary' && suffix !== '_bucket'))) return base;
  }
  return undefined;
}

function parseNumber(text: string): number {
  if (/^[+]?Inf$/.test(text)) return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  return Number(text);
}

export function parseExposition(text: string): Exposition {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('exposition does not end with a newline');
  const types = new Map<string, string>();
  const samples = new Map<string, number>();
  const seenSamplesOf = new Set<string>();
  const buckets = new Map<string, { le: number; value: number }[]>();
  const lines = text.split('\n').slice(0, -1);
  lines.forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line.slice(0, 120))}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const type = TYPE.exec(line);
      if (type) {
        const [, name = '', kind = ''] = type;
        if (types.has(name)) throw new Error(`${where}: second TYPE for ${name}`);
        if (seenSamplesOf.has(name)) throw new Error(`${where}: TYPE after samples of ${name}`);
        types.set(name, kind);
        return;
      }
      if (line.startsWith('# HELP ') && !HELP.test(line)) throw new Error(`${where}: malformed HELP`);
      if (line.startsWith('# TYPE')) throw new Error(`${where}: malformed TYPE`);
      return;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`${where}: not a sample line`);
    const [, name = '', labelText = '', valueText = ''] = m;
    const labels: Record<string, string> = {};
    for (const pair of labelText.matchAll(PAIR)) {
      const [, key = '', quoted = ''] = pair;
      if (key in labels) throw new Error(`${where}: label ${key} twice`);
      labels[key] = quoted.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    const family = familyOf(name, types) ?? name;
    seenSamplesOf.add(family);
    const kind = types.get(family);
    if (kind === 'histogram' && name === family) throw new Error(`${where}: histogram sample without _bucket/_sum/_count`);
    const value = parseNumber(valueText);
    const key = sampleKey(name, labels);
    if (samples.has(key)) throw new Error(`${where}: sample repeated`);
    samples.set(key, value);
    if (kind === 'histogram' && name.endsWith('_bucket')) {
      const le = labels.le;
      if (le === undefined) throw new Error(`${where}: bucket without le`);
      const rest = { ...labels };
      delete rest.le;
      const series = sampleKey(family, rest);
      const list = buckets.get(series) ?? [];
      list.push({ le: parseNumber(le), value });
      buckets.set(series, list);
    }
  });
  for (const [series, list] of buckets) {
    for (let k = 1; k < list.length; k++) {
      const prev = list[k - 1];
      const cur = list[k];
      if (prev && cur && (cur.le <= prev.le || cur.value < prev.value)) throw new Error(`${series}: buckets not cumulative at le=${cur.le}`);
    }
    const last = list[list.length - 1];
    if (!last || last.le !== Number.POSITIVE_INFINITY) throw new Error(`${series}: no +Inf bucket`);
    const name = series.replace(/^([^{]+)/, '$1_count');
    if (samples.get(name) !== last.value) throw new Error(`${series}: +Inf bucket ${last.value} differs from _count ${samples.get(name)}`);
  }
  return { types, samples };
}

/** The value of one sample, 0 when the series has not appeared yet (a counter never touched). */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples.get(sampleKey(name, labels)) ?? 0;
}
