/**
 * @module search/countries
 * Countries in the words people search with: an exchange's `country` fact ("KR") is "south korea
 * korean kr" in its document (corpus), and "korean crypto exchange" or "exchange in australia"
 * names a country in a question (scope). Names come from Intl's region names; adjectives from the
 * table below, for the countries exchanges name.
 */
const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region" });
/** Adjectives of the countries exchanges name, the way questions use them ("korean exchange"). */
const DEMONYMS: Record<string, string[]> = {
  AU: ["australian"], BR: ["brazilian"], CA: ["canadian"], CN: ["chinese"], DE: ["german"], FR: ["french"], GB: ["british", "uk"],
  UK: ["british", "uk"], HK: ["hong kong"], ID: ["indonesian"], IN: ["indian"], JP: ["japanese"], KR: ["korean"], MX: ["mexican"],
  NL: ["dutch"], NZ: ["new zealand"], PH: ["philippine", "filipino"], RU: ["russian"], SG: ["singaporean"], TH: ["thai"],
  TR: ["turkish"], TW: ["taiwanese"], US: ["american", "usa"], ZA: ["south african"], EU: ["european"], MT: ["maltese"],
};

/** A country code as the facts hold it ("KR", "UK", ccxt's "pt-BR") to its region code ("KR", "GB", "BR"). */
export function regionOf(code: string): string {
  const upper = code.replace(/^[a-z]+-/, "").toUpperCase();
  return upper === "UK" ? "GB" : upper;
}

function regionName(code: string): string {
  try {
    return REGION_NAMES.of(regionOf(code))?.toLowerCase() ?? "";
  } catch {
    return ""; // not a region code: its own letters are all there is
  }
}

/** The phrases that name a country: its name, its adjectives ("South Korea", "korean"). */
export function countryPhrases(code: string): string[] {
  const region = regionOf(code);
  return [...new Set([regionName(code), ...(DEMONYMS[region] ?? DEMONYMS[code.toUpperCase()] ?? [])].filter(Boolean))];
}

/** A country code in words: "KR" -> "south korea korean kr". */
export function countryWords(code: string): string {
  return `${countryPhrases(code).join(" ")} ${code.replace(/^[a-z]+-/, "").toLowerCase()}`;
}
