/**
 * Cache keys of the server's resources, in one place because one feature's change invalidates
 * another's queries (an upload on the project page changes the file list the projects tree shows).
 */
export const queryKeys = {
  projects: ['projects'] as const,
  project: (projectId: number) => ['project', projectId] as const,
  projectFiles: (projectId: number) => ['project-files', projectId] as const,
  /** Starts with projectFiles(projectId): invalidating the project's files refreshes every page too. */
  projectFilesPage: (projectId: number, request: object) => ['project-files', projectId, 'page', request] as const,
  fileContents: (fileId: number) => ['file-contents', fileId] as const,
};
