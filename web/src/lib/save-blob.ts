/** Clicks a hidden link that makes the browser download `href`: its own download manager takes it. */
export function clickDownload(href: string, fileName = ''): void {
  const anchor = document.createElement('a');
  anchor.href = href;
  // Empty: the server's Content-Disposition names the file.
  anchor.download = fileName;
  anchor.style.display = 'none';
  document.body.appendChild(anchor);
  anchor.click();
  anchor.remove();
}

/** Hands a downloaded blob to the browser as a file saved under the given name. */
export function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  clickDownload(url, fileName);
  // Revoking at once can cancel the save in some browsers; a minute is ample for it to start.
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
