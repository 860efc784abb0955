/**
 * A labelled event's chart (the Quality page), an SVG drawn by hand: the entity's series around the
 * event's day as a line (when the report has it), under it one row per signal type with a mark on
 * each day that type fired (filled: passed its screens; hollow: failed one), the event's day as a
 * dashed line across both and the detection window shaded. Without a series, the rows alone on the
 * day axis. The svg is one image to assistive technology: its title and description say what it
 * shows, every fire included; `data-points` and `data-marks` count what it drew (the browser tests
 * read them), and each mark has its own tooltip.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { compact } from "./chart.tsx";

export type Point = [day: string, value: number | null];

export interface Fired {
  type: string;
  days: string[];
  screened_days: string[];
}

export interface EventChartProps {
  /** Unique on the page: names the title and description elements. */
  id: string;
  title: string;
  /** The event's day (UTC). */
  day: string;
  /** The axis: these days and every fire and point shown. */
  from: string;
  to: string;
  /** Days a type firing on the entity counts as catching the event. */
  detectFrom: string;
  detectTo: string;
  series: { label: string; points: Point[] } | null;
  fired: Fired[];
}

const DAY_MS = 86_400_000;
const LABEL_W = 190;
const RIGHT = 16;
const TOP = 20;
const PLOT_H = 130;
const ROW_H = 22;
const AXIS_H = 26;

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / DAY_MS;
const dayOf = (n: number) => new Date(n * DAY_MS).toISOString().slice(0, 10);

/** The wrapper's width in pixels, followed as it changes (text stays its size: no viewBox scaling). */
function useWidth(fallback: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => setWidth(Math.max(420, Math.floor(el.clientWidth) || fallback));
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/** Up to about seven ticks on whole days, a week or a month apart as the span needs. */
function ticks(from: number, to: number): number[] {
  const span = to - from;
  const step = [1, 2, 7, 14, 30, 61, 91, 182, 365].find((s) => span / s <= 7) ?? 365;
  const out: number[] = [];
  for (let d = Math.ceil(from / step) * step; d <= to; d += step) out.push(d);
  return out;
}

/** What the chart shows, in words: its accessible description. */
function describeFires(fired: Fired[], from: string, to: string): string {
  if (fired.length === 0) return `No signal type fired on this entity from ${from} to ${to}.`;
  return fired
    .map((f) => {
      const failed = f.days.filter((d) => !f.screened_days.includes(d));
      const detail = failed.length === 0 ? "all passed their screens" : failed.length === f.days.length ? "all failed a screen" : `failing a screen on ${failed.join(", ")}`;
      return `${f.type} fired on ${f.days.length} day${f.days.length === 1 ? "" : "s"} (${f.days.join(", ")}), ${detail}.`;
    })
    .join(" ");
}

export function EventChart(props: EventChartProps) {
  const [box, width] = useWidth(720);
  const points = props.series?.points ?? [];
  const values = points.map(([, v]) => v).filter((v): v is number => v !== null);
  const plotH = values.length > 0 ? PLOT_H : 0;
  const rows = Math.max(1, props.fired.length);
  const rowsTop = TOP + plotH + (plotH ? 14 : 4);
  const height = rowsTop + rows * ROW_H + AXIS_H;
  const bottom = rowsTop + rows * ROW_H;

  const from = dayNumber(props.from);
  const to = Math.max(dayNumber(props.to), from + 1);
  const x = (day: string) => LABEL_W + ((dayNumber(day) - from) / (to - from)) * (width - LABEL_W - RIGHT);

  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (lo === hi) [lo, hi] = [lo - Math.abs(lo) * 0.01 - 1e-9, hi + Math.abs(hi) * 0.01 + 1e-9];
  const y = (v: number) => TOP + plotH - ((v - lo) / (hi - lo)) * plotH;
  let path = "";
  let pen = false;
  for (const [day, v] of points) {
    if (v === null) pen = false;
    else {
      path += `${pen ? "L" : "M"}${x(day).toFixed(1)} ${y(v).toFixed(1)} `;
      pen = true;
    }
  }

  const marks = props.fired.reduce((n, f) => n + f.days.length, 0);
  const eventX = x(props.day);
  const windowX = [Math.max(LABEL_W, x(props.detectFrom)), Math.min(width - RIGHT, x(props.detectTo))] as const;
  const seriesText = props.series && values.length > 0 ? `${props.series.label}: ${values.length} points from ${points[0]![0]} to ${points.at(-1)![0]}, from ${compact(lo)} to ${compact(hi)}. ` : "";
  return (
    <div class="event-chart" ref={box}>
      <svg
        role="img"
        width={width}
        height={height}
        aria-labelledby={`${props.id}-title ${props.id}-desc`}
        data-points={values.length}
        data-marks={marks}
      >
        <title id={`${props.id}-title`}>{props.title}</title>
        <desc id={`${props.id}-desc`}>{`${seriesText}Event day ${props.day}. ${describeFires(props.fired, props.from, props.to)}`}</desc>
        <rect class="detect-window" x={windowX[0]} y={TOP} width={Math.max(0, windowX[1] - windowX[0])} height={bottom - TOP}>
          <title>{`detection window ${props.detectFrom} to ${props.detectTo}`}</title>
        </rect>
        {plotH ? (
          <g class="plot">
            {[hi, lo].map((v) => (
              <>
                <line class="grid" x1={LABEL_W} x2={width - RIGHT} y1={y(v)} y2={y(v)} />
                <text class="tick" x={LABEL_W - 8} y={y(v) + 4} text-anchor="end">
                  {compact(v)}
                </text>
              </>
            ))}
            <text class="series-label" x={LABEL_W - 8} y={TOP + plotH / 2 + 4} text-anchor="end">
              {props.series!.label}
            </text>
            <path class="line" d={path} />
            {points.map(([day, v]) =>
              v === null ? null : (
                <circle class="point" cx={x(day)} cy={y(v)} r={2}>
                  <title>{`${day}: ${v}`}</title>
                </circle>
              ),
            )}
          </g>
        ) : null}
        <line class="event-day" x1={eventX} x2={eventX} y1={TOP - 4} y2={bottom} />
        {props.fired.length === 0 ? (
          <text class="tick" x={LABEL_W + 4} y={rowsTop + ROW_H / 2 + 4}>
            no signal type fired in these days
          </text>
        ) : null}
        {props.fired.map((f, i) => {
          const cy = rowsTop + i * ROW_H + ROW_H / 2;
          return (
            <g class="fires" data-type={f.type}>
              <line class="row" x1={LABEL_W} x2={width - RIGHT} y1={cy} y2={cy} />
              <text class="type" x={LABEL_W - 8} y={cy + 4} text-anchor="end">
                {f.type}
              </text>
              {f.days.map((d) => {
                const screened = f.screened_days.includes(d);
                return (
                  <circle class={`mark ${screened ? "screened" : "unscreened"}`} cx={x(d)} cy={cy} r={5} data-day={d}>
                    <title>{`${f.type} fired ${d}${screened ? ", passed its screens" : ", failed a screen"}`}</title>
                  </circle>
                );
              })}
            </g>
          );
        })}
        <text class="event-day-label" x={eventX} y={TOP - 8} text-anchor={eventX > width - 120 ? "end" : eventX < LABEL_W + 60 ? "start" : "middle"}>
          {`event ${props.day}`}
        </text>
        <line class="axis" x1={LABEL_W} x2={width - RIGHT} y1={bottom} y2={bottom} />
        {ticks(from, to)
          .filter((d) => x(dayOf(d)) <= width - 36)
          .map((d) => (
          <>
            <line class="axis" x1={x(dayOf(d))} x2={x(dayOf(d))} y1={bottom} y2={bottom + 4} />
            <text class="tick" x={x(dayOf(d))} y={bottom + 17} text-anchor="middle">
              {dayOf(d)}
            </text>
          </>
        ))}
      </svg>
    </div>
  );
}
