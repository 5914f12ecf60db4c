/** Hands a downloaded blob to the browser as a file saved under the given name. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.style.display = 'none';
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
  // Revoking at once can cancel the save in some browsers; a minute is ample for it to start.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
