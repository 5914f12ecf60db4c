import type { Kysely } from 'kysely';

// What a DICOMweb search (QIDO-RS, PS3.18 Table 6.7.1-2, -2a, -2b) must answer and the index did not
// hold: the study's accession number, time, ID, referring physician and patient's birth date and
// sex, the series and instance numbers. Read from each instance's header at processing (as written,
// the numbers parsed strictly: a value that is not an integer is null). Null for rows processed
// before this migration.
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['accession_number', 'study_time', 'study_id', 'referring_physician_name', 'patient_birth_date', 'patient_sex']) {
    await db.schema.alterTable('file_entries').addColumn(column, 'text').execute();
  }
  for (const column of ['series_number', 'instance_number']) {
    await db.schema.alterTable('file_entries').addColumn(column, 'integer').execute();
  }
}
