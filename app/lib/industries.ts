/**
 * Industries: the 21 sections of the United Nations' International Standard Industrial Classification, ISIC Rev. 4
 * (the same sections as the EU's NACE Rev. 2), by their letter and official title. A fixed, well-known list that
 * covers every employer, public and non-profit ones included (docs/decisions/0025-industries-and-review-site-address.md).
 */
export const industrySections = [
  { code: "A", title: "Agriculture, forestry and fishing" },
  { code: "B", title: "Mining and quarrying" },
  { code: "C", title: "Manufacturing" },
  { code: "D", title: "Electricity, gas, steam and air conditioning supply" },
  { code: "E", title: "Water supply; sewerage, waste management and remediation activities" },
  { code: "F", title: "Construction" },
  { code: "G", title: "Wholesale and retail trade; repair of motor vehicles and motorcycles" },
  { code: "H", title: "Transportation and storage" },
  { code: "I", title: "Accommodation and food service activities" },
  { code: "J", title: "Information and communication" },
  { code: "K", title: "Financial and insurance activities" },
  { code: "L", title: "Real estate activities" },
  { code: "M", title: "Professional, scientific and technical activities" },
  { code: "N", title: "Administrative and support service activities" },
  { code: "O", title: "Public administration and defence; compulsory social security" },
  { code: "P", title: "Education" },
  { code: "Q", title: "Human health and social work activities" },
  { code: "R", title: "Arts, entertainment and recreation" },
  { code: "S", title: "Other service activities" },
  {
    code: "T",
    title:
      "Activities of households as employers; undifferentiated goods- and services-producing activities of households for own use",
  },
  { code: "U", title: "Activities of extraterritorial organizations and bodies" },
] as const;

export type IndustrySection = (typeof industrySections)[number];
export type IndustryCode = IndustrySection["code"];

/** The section named by its letter ("J") or its exact title; undefined for any other text (an older free text). */
export function industrySectionOf(text: string): IndustrySection | undefined {
  return industrySections.find((section) => section.code === text || section.title === text);
}
