import countries from "i18n-iso-countries";
import english from "i18n-iso-countries/langs/en.json" with { type: "json" };

countries.registerLocale(english);

/**
 * ISO 3166-1 lists 249 codes; the spec's dropdown has about 195 countries. We keep the sovereign states and
 * the places people commonly think of as their own labour market (Taiwan, Hong Kong), and leave out
 * dependent territories and uninhabited areas, whose employers file under the governing country.
 */
const territories = new Set(
  (
    "AS AI AQ AW AX BL BM BQ BV CC CK CW CX EH FK FO GF GG GI GL GP GS GU HM IM IO JE KY MF MO MP MQ MS NC NF NU " +
    "PF PM PN PR RE SH SJ SX TC TF TK UM VG VI WF YT"
  ).split(" "),
);

/** Shorter everyday names where the ISO name is formal; the spec asks for "United States". */
const everydayNames: Record<string, string> = {
  US: "United States",
  RU: "Russia",
  TW: "Taiwan",
  IR: "Iran",
  SY: "Syria",
  LA: "Laos",
  MD: "Moldova",
  VA: "Vatican City",
  PS: "Palestine",
  BN: "Brunei",
  FM: "Micronesia",
  MK: "North Macedonia",
  CI: "Côte d'Ivoire",
  TZ: "Tanzania",
  KP: "North Korea",
  HK: "Hong Kong",
  CN: "China",
  GM: "Gambia",
};

export type Country = { code: string; name: string };

const collator = new Intl.Collator("en");

/** "United States" first, then alphabetical. */
export const countryList: readonly Country[] = (() => {
  const all = Object.entries(countries.getNames("en", { select: "official" }))
    .filter(([code]) => !territories.has(code))
    .map(([code, name]) => ({ code, name: everydayNames[code] ?? name }));
  const first = all.filter((country) => country.code === "US");
  const rest = all.filter((country) => country.code !== "US").sort((a, b) => collator.compare(a.name, b.name));
  return [...first, ...rest];
})();

const byCode = new Map(countryList.map((country) => [country.code, country]));

export function isCountryCode(code: string): boolean {
  return byCode.has(code);
}

export function countryName(code: string): string {
  return byCode.get(code)?.name ?? code;
}
