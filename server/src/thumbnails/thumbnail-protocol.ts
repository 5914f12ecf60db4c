// The messages between the thumbnail renderer's process (thumbnail-process.ts) and the server's
// side of it (thumbnail-renderer.ts).

export interface RenderRequest {
  id: number;
  /** The stored DICOM instance, whole (Part 10). */
  bytes: Uint8Array;
  /** The frame to draw, from 0; the middle one of a multi-frame instance. */
  frame: number;
  /** The long side's limit in pixels. */
  maxSide: number;
}

export type RenderReply =
  | { id: number; ok: true; picture: Uint8Array; width: number; height: number; mime: string }
  /** `reason`: words for the owner; `detail`: the library's message, for the log only. */
  | { id: number; ok: false; reason: string; detail: string };
