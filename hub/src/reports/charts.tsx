import type { Point } from './series.ts';

/**
 * Server-side SVG charts (no chart library, no script): bars with a title and a description
 * for screen readers. Heights are proportional to the largest value; a zero is a 1-pixel
 * baseline so an empty slot is visible. Pure: the same figures render the same SVG.
 */
export interface BarChartProps {
  id: string;
  title: string;
  points: readonly Point[];
  /** The label under a bar, when there is room (at most 31 bars). */
  label: (at: number) => string;
  /** The sentence a screen reader hears for one bar. */
  describe: (p: Point) => string;
  width?: number;
  height?: number;
}

export function barHeights(points: readonly Point[], maxHeight: number): number[] {
  const max = Math.max(0, ...points.map((p) => p.value));
  return points.map((p) => (max === 0 || p.value === 0 ? 1 : Math.max(1, Math.round((p.value / max) * maxHeight))));
}

export function BarChart(props: BarChartProps) {
  const width = props.width ?? 720;
  const height = props.height ?? 200;
  const plot = height - (props.points.length <= 31 ? 34 : 14);
  const slot = (width - 10) / Math.max(1, props.points.length);
  const heights = barHeights(props.points, plot - 16);
  const max = Math.max(0, ...props.points.map((p) => p.value));
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`}>
      <title id={`${props.id}-title`}>{props.title}</title>
      <desc id={`${props.id}-desc`}>{props.points.map(props.describe).join('; ')}</desc>
      <text x="4" y="12" class="axis">{`max ${max}`}</text>
      {props.points.map((p, i) => (
        <rect
          class="bar"
          x={(5 + i * slot + 1).toFixed(1)}
          y={(plot - (heights[i] ?? 1)).toFixed(1)}
          width={Math.max(1, slot - 2).toFixed(1)}
          height={heights[i] ?? 1}
        />
      ))}
      {props.points.length <= 31
        ? props.points.map((p, i) => (
            <text class="axis" x={(5 + i * slot + slot / 2).toFixed(1)} y={height - 18} text-anchor="middle">
              {props.label(p.at)}
            </text>
          ))
        : null}
    </svg>
  );
}

/** A row-sized sparkline (no labels), for one collector in a table. */
export function Sparkline(props: { label: string; points: readonly Point[]; width?: number; height?: number }) {
  const width = props.width ?? 240;
  const height = props.height ?? 28;
  const slot = width / Math.max(1, props.points.length);
  const heights = barHeights(props.points, height - 2);
  return (
    <svg class="spark" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img" aria-label={props.label}>
      {props.points.map((_, i) => (
        <rect
          class="bar"
          x={(i * slot).toFixed(1)}
          y={(height - (heights[i] ?? 1)).toFixed(1)}
          width={Math.max(0.5, slot - 0.5).toFixed(1)}
          height={heights[i] ?? 1}
        />
      ))}
    </svg>
  );
}
