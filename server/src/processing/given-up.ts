// What the owner reads when a processing job gave up after its last attempt: the server, not the
// file, kept failing (the cause, whose text names internals, is in the runner's log). In a project
// that removes patient identity the bytes as they arrived may still carry it, so the job deleted
// them rather than keep them on a failed row (issue 33): the words then say so.
export function givenUpMessage(attempts: number, identityDeleted = false): string {
  const cause = `Processing failed after ${attempts} attempts because of a problem on the server, not in the file. `;
  return identityDeleted
    ? `${cause}As it may carry patient identity, what arrived was deleted from the server: send it again later, or ask your administrator to look at the server log.`
    : `${cause}The file is stored: delete it and upload it again later, or ask your administrator to look at the server log.`;
}
