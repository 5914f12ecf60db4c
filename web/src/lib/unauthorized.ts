// Who is told that the server ended the session: the api client calls it on a 401; the session
// replaces it once mounted. Kept apart from the api client so the sign-in screen's first load needs
// no HTTP library (issue 36: the client loads when the first call is made).

let onUnauthorized: () => void = () => {
  if (window.location.pathname !== '/') window.location.assign('/');
};

/** The session replaces the full-page fallback with a router navigation once it is mounted. */
export function setUnauthorizedHandler(handler: () => void): () => void {
  const previous = onUnauthorized;
  onUnauthorized = handler;
  return () => {
    onUnauthorized = previous;
  };
}

export function reportUnauthorized(): void {
  onUnauthorized();
}
