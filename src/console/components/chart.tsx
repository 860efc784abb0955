/**
 * A time-series chart (uPlot): one or more series over days. The canvas carries an aria-label with
 * what it shows and `data-points` with how many points it drew (the browser tests read it).
 */
import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
}

const COLORS = ["#1f5fbf", "#b34700", "#2e7d32", "#7b1fa2", "#c62828", "#00695c"];

export function Chart(props: { title: string; days: string[]; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const points = props.series.reduce((n, s) => n + s.values.filter((v) => v !== null).length, 0);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const xs = props.days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth || 600),
        height: props.height ?? 220,
        series: [{}, ...props.series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true }))],
        axes: [{}, { size: 70, values: (_u, ticks) => ticks.map(compact) }],
        legend: { live: true },
      },
      [xs, ...props.series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    const resize = () => plot.setSize({ width: Math.max(280, el.clientWidth), height: props.height ?? 220 });
    addEventListener("resize", resize);
    return () => {
      removeEventListener("resize", resize);
      plot.destroy();
    };
  }, [props.days, props.series, props.height]);
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <div ref={box} role="img" aria-label={`${props.title}: ${points} points from ${props.days[0] ?? "-"} to ${props.days.at(-1) ?? "-"}`} data-points={points} />
    </figure>
  );
}

/** 1234567 -> 1.23M: axis labels that fit. */
export function compact(value: number | null): string {
  if (value === null || !Number.isFinite(value)) return "";
  const abs = Math.abs(value);
  for (const [unit, size] of [["T", 1e12], ["B", 1e9], ["M", 1e6], ["k", 1e3]] as const) if (abs >= size) return `${+(value / size).toFixed(2)}${unit}`;
  return `${+value.toFixed(4)}`;
}
