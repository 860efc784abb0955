/**
 * @module signals/figures
 * The figures a sentence states, and whether each is backed by known facts: the check that keeps an
 * endpoint's narrative only when it invents no figure (a model's numbers reach users as if they
 * were data).
 *
 * A figure is a number as people write it (12, 1,234,567, 12.3%, 1.2M, $70K, 1.5 billion, 250 bps,
 * 2.5x, the words two to twelve) or a date (2026-11-28, November 28, 2026, 28 Nov, March 2023). A
 * written number stands for the interval its rounding covers: "12.3%" is 12.25..12.35 and matches
 * 12.34; "1.2M" is 1.15M..1.25M and matches 1,234,567. A fact found in a string is itself an interval
 * (a summary's "11.22M USD"), so two figures match when their intervals meet. A percentage also
 * matches the fraction a table stores (85% and 0.85). Signs are ignored: "fell 5%" and a change of -5
 * state the same figure; the words around it carry the direction, which this does not judge.
 *
 * Not figures: digits inside a word or name (Uniswap V3, 1inch, 0x12ab, ERC-20, D-7), and "one", a
 * pronoun as often as a number. Derived figures (a ratio or difference the facts do not hold) are
 * not accepted: that is the point.
 */

interface Span {
  lo: number;
  hi: number;
}

/** A date as written: a year, month or day left out matches any. */
interface Day {
  year?: number;
  month?: number;
  day?: number;
}

export interface Figure {
  /** As written in the text ("12.3%", "November 28"). */
  text: string;
  /** The values it may stand for (a percentage: the figure and its fraction), each with its rounding. */
  spans?: Span[];
  date?: Day;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
// Capitalised only: "may" and "march" as verbs are not dates.
const MONTH = "(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?";
const ORDINAL = "(?:st|nd|rd|th)?";
const DATE_PATTERNS: { re: RegExp; day: (m: RegExpExecArray) => Day }[] = [
  { re: /(?<![\w-])(\d{4})-(\d{2})-(\d{2})(?:T[\d:.]+Z?)?(?![\w-])/g, day: (m) => ({ year: +m[1]!, month: +m[2]!, day: +m[3]! }) },
  { re: new RegExp(`(?<!\\w)${MONTH} (\\d{1,2})${ORDINAL}(?:,? (\\d{4}))?(?!\\w)`, "g"), day: (m) => ({ month: month(m[1]!), day: +m[2]!, ...(m[3] ? { year: +m[3] } : {}) }) },
  { re: new RegExp(`(?<!\\w)(\\d{1,2})${ORDINAL} (?:of )?${MONTH}(?:,? (\\d{4}))?(?!\\w)`, "g"), day: (m) => ({ month: month(m[2]!), day: +m[1]!, ...(m[3] ? { year: +m[3] } : {}) }) },
  { re: new RegExp(`(?<!\\w)${MONTH},? (\\d{4})(?!\\w)`, "g"), day: (m) => ({ month: month(m[1]!), year: +m[2]! }) },
];

const SCALE: Record<string, number> = { k: 1e3, thousand: 1e3, m: 1e6, mn: 1e6, million: 1e6, b: 1e9, bn: 1e9, billion: 1e9, t: 1e12, tn: 1e12, trillion: 1e12 };
/** A number not inside a word: no letter, digit or "letter-" just before it. */
const NUMBER = /(?<![\p{L}\p{N}_.,])(?<!\p{L}-)(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?/gu;
/** What may follow a number, read just after it; the first that fits wins. */
const SUFFIX =
  /\s?(%|percent(?:age points?)?|per cent|pct|pp)(?![\p{L}\p{N}])|\s?(bps|basis points?)(?![\p{L}\p{N}])|\s?(thousand|million|billion|trillion|mn|bn|tn)(?![\p{L}\p{N}])|(k|K|m|M|b|B|T)(?![\p{L}\p{N}])|(x|×)(?![\p{L}\p{N}])|(st|nd|rd|th|s|h|d|w|y)(?![\p{L}\p{N}])/uy;
const WORDS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12 };
const WORD = new RegExp(`(?<![\\p{L}-])(${Object.keys(WORDS).join("|")})(?![\\p{L}-])`, "giu");

function month(name: string): number {
  return MONTHS.indexOf(name.slice(0, 3)) + 1;
}

/** The figures of `text`, in order of appearance. */
export function figuresIn(text: string): Figure[] {
  const found: { at: number; figure: Figure }[] = [];
  // Dates first, then blanked out so their digits are not read again as numbers.
  let rest = text;
  for (const { re, day } of DATE_PATTERNS) {
    for (const m of rest.matchAll(re)) {
      const date = day(m as RegExpExecArray);
      if (date.month! < 1 || date.month! > 12 || (date.day !== undefined && (date.day < 1 || date.day > 31))) continue;
      found.push({ at: m.index, figure: { text: m[0], date } });
      rest = rest.slice(0, m.index) + " ".repeat(m[0].length) + rest.slice(m.index + m[0].length);
    }
  }
  for (const m of rest.matchAll(NUMBER)) {
    const end = m.index + m[0].length;
    SUFFIX.lastIndex = end;
    const suffix = SUFFIX.exec(rest);
    // Digits running into other letters are a name (1inch, 3pool), not a figure.
    if (!suffix && /\p{L}/u.test(rest.charAt(end))) continue;
    const value = Number(m[1]!.replaceAll(",", "") + (m[2] ? `.${m[2]}` : ""));
    const half = 0.5 * 10 ** -(m[2]?.length ?? 0);
    const [percent, bps, word, letter] = [suffix?.[1], suffix?.[2], suffix?.[3], suffix?.[4]];
    const scale = word ? SCALE[word.toLowerCase()]! : letter ? SCALE[letter.toLowerCase()]! : 1;
    // A percentage may be stored as a fraction, basis points as either.
    const divisors = percent ? [1, 100] : bps ? [1, 100, 10_000] : [1];
    const spans = divisors.map((d) => around((value * scale) / d, (half * scale) / d));
    found.push({ at: m.index, figure: { text: m[0] + (suffix?.[0] ?? ""), spans } });
  }
  for (const m of rest.matchAll(WORD)) found.push({ at: m.index, figure: { text: m[0], spans: [around(WORDS[m[1]!.toLowerCase()]!, 0)] } });
  return found.sort((a, b) => a.at - b.at).map((f) => f.figure);
}

/** The interval a written value covers, widened by a hair for binary floating point. */
function around(value: number, half: number): Span {
  const slack = half + Math.abs(value) * 1e-9;
  return { lo: value - slack, hi: value + slack };
}

/** Known facts: numbers (exact) and the figures of strings, gathered from any JSON-like values. */
export class Facts {
  private readonly spans: Span[] = [];
  private readonly days: Day[] = [];

  /** Adds every number and every string's figures found in `values`, at any depth. */
  add(...values: unknown[]): this {
    const stack = [...values];
    while (stack.length > 0) {
      const value = stack.pop();
      if (typeof value === "number" && Number.isFinite(value)) this.spans.push(around(Math.abs(value), 0));
      else if (typeof value === "string") this.addText(value);
      else if (Array.isArray(value)) stack.push(...value);
      else if (value && typeof value === "object") stack.push(...Object.values(value));
    }
    return this;
  }

  private addText(text: string): void {
    for (const figure of figuresIn(text)) {
      if (figure.spans) this.spans.push(figure.spans[0]!);
      if (figure.date) {
        this.days.push(figure.date);
        // A full date also backs its year said alone ("in 2026").
        if (figure.date.year !== undefined) this.spans.push(around(figure.date.year, 0));
      }
    }
  }

  /** Whether a figure is backed: some fact's interval meets one of its own, or a date agrees with one known. */
  backs(figure: Figure): boolean {
    if (figure.date) {
      const d = figure.date;
      return this.days.some((k) => (d.year === undefined || k.year === d.year) && (d.month === undefined || k.month === d.month) && (d.day === undefined || k.day === d.day));
    }
    return figure.spans!.some((s) => this.spans.some((k) => k.lo <= s.hi && s.lo <= k.hi));
  }
}

/** The figures of `text` that `facts` do not back, as written, in order (empty: every figure is backed). */
export function unbackedFigures(text: string, facts: Facts): string[] {
  return figuresIn(text)
    .filter((f) => !facts.backs(f))
    .map((f) => f.text);
}
