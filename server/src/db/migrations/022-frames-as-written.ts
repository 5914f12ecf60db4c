import type { Kysely } from 'kysely';

// NumberOfFrames is an IS (an integer written as text). When a file's value is not an integer
// ('1A'), dcmtk shows it as written, and so does the index: in this text column, with
// number_of_frames null; a valid value stays in number_of_frames as a number and this stays null.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('file_entries').addColumn('number_of_frames_text', 'text').execute();
}
