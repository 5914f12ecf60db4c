// Links into the OHIF viewer the server serves under /viewer/ (docs/web.md, "The image viewer").
// The viewer is a separate page, loaded only when opened: none of it is in the portal's bundle.
// The URL names the project and what to show, never the session (the viewer reads it itself).

const VIEWER = '/viewer/viewer';

/** One study of a project. */
export function studyViewerUrl(projectId: number, studyInstanceUid: string): string {
  return `${VIEWER}?${new URLSearchParams({ project: String(projectId), StudyInstanceUIDs: studyInstanceUid })}`;
}

/** Every study of one upload (a DICOM file or a folder): the viewer looks them up when it opens. */
export function fileViewerUrl(projectId: number, fileId: number): string {
  return `${VIEWER}?${new URLSearchParams({ project: String(projectId), file: String(fileId) })}`;
}
