import type { Kysely } from "kysely";

/**
 * Peer ranking in slices (docs/decisions/0017-trends-and-comparisons-from-stored-figures.md): the job finds a
 * group's rows of subjects that left it by walking the group's `overall` rows in order of subject, a slice at a
 * time, so `subject_percentiles_group` gains the criterion and the subject: each slice is one short range of the
 * index instead of a scan of the whole group.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("subject_percentiles_group").execute();
  await db.schema
    .createIndex("subject_percentiles_group")
    .on("subject_percentiles")
    .columns(["subject", "scope", "scope_value", "criterion", "subject_id"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("subject_percentiles_group").execute();
  await db.schema
    .createIndex("subject_percentiles_group")
    .on("subject_percentiles")
    .columns(["subject", "scope", "scope_value"])
    .execute();
}
