// The thumbnail renderer's own process (started by thumbnail-renderer.ts): decodes one frame of a
// DICOM instance with dcmjs-imaging (its WebAssembly codecs: JPEG, JPEG-LS, JPEG 2000, HTJ2K, RLE),
// which applies the window (Window Center/Width, else the pixels' range), the rescale slope and
// intercept, MONOCHROME1's inversion and colour models, then shrinks and encodes it with sharp.
// A crash, a hang or a runaway allocation here ends this process only, never the server.
import { createRequire } from 'node:module';
import dcmjsImaging from 'dcmjs-imaging';
import sharp from 'sharp';
import type { RenderReply, RenderRequest } from './thumbnail-protocol.js';

const { DicomImage, NativePixelDecoder } = dcmjsImaging;
dcmjsImaging.log.setLevel('error');

// One picture at a time and no cache: the process stays small between pictures.
sharp.cache(false);
sharp.concurrency(1);

let codecs: Promise<void> | null = null;

/** How many frames of a multi-frame instance are tried when its middle one is blank. */
const OTHER_FRAMES_TRIED = 32;
/** A picture whose values span less than this is blank to the eye (and once encoded as JPEG). */
const NEARLY_BLANK = 8;

/** The widest range of one colour channel's values in a rendered RGBA picture: 0 for a blank one. */
function spread(pixels: ArrayBuffer): number {
  const rgba = new Uint8Array(pixels);
  let widest = 0;
  for (let channel = 0; channel < 3; channel += 1) {
    let min = 255;
    let max = 0;
    for (let i = channel; i < rgba.length; i += 4) {
      const v = rgba[i]!;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    widest = Math.max(widest, max - min);
  }
  return widest;
}

/** The library's words for what it could not do, turned into the owner's. */
function wordsFor(message: string): string {
  if (/photometric/i.test(message)) return 'This series’ pictures use a colour model the thumbnail renderer cannot draw.';
  if (/transfer syntax|decoder|codec/i.test(message)) return 'This series’ pictures use a compression the thumbnail renderer cannot read.';
  return 'The thumbnail renderer could not read this series’ picture: the stored file may be damaged or unusual.';
}

async function render(request: RenderRequest): Promise<RenderReply> {
  // The codecs' WebAssembly ships in the npm package, beside its code.
  codecs ??= NativePixelDecoder.initializeAsync({ webAssemblyModulePathOrUrl: createRequire(import.meta.url).resolve('dcmjs-imaging/build/dcmjs-native-codecs.wasm') });
  await codecs;
  const bytes = request.bytes;
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let drawn: { width: number; height: number; pixels: ArrayBuffer };
  try {
    const image = new DicomImage(buffer);
    const frames = Math.max(1, image.getNumberOfFrames());
    drawn = image.render({ frame: Math.min(request.frame, frames - 1), renderOverlays: false });
    // A (nearly) blank middle frame (a slide's background tile, an empty slice) says nothing of the series:
    // other frames, spread over the instance, are tried, and the one with the widest range of values
    // is shown.
    let widest = spread(drawn.pixels);
    if (frames > 1 && widest < NEARLY_BLANK) {
      drawn = { ...drawn, pixels: drawn.pixels.slice(0) };
      const tried = Math.min(frames, OTHER_FRAMES_TRIED);
      for (let i = 0; i < tried; i += 1) {
        const other = image.render({ frame: Math.floor((i * frames) / tried), renderOverlays: false });
        const range = spread(other.pixels);
        // Copied: the library may draw the next frame into the same buffer.
        if (range > widest) [drawn, widest] = [{ ...other, pixels: other.pixels.slice(0) }, range];
      }
    }
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { id: request.id, ok: false, reason: wordsFor(detail), detail };
  }
  const { data, info } = await sharp(Buffer.from(drawn.pixels), { raw: { width: drawn.width, height: drawn.height, channels: 4 } })
    .resize({ width: request.maxSide, height: request.maxSide, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .jpeg({ quality: 80 })
    .toBuffer({ resolveWithObject: true });
  return { id: request.id, ok: true, picture: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, mime: 'image/jpeg' };
}

process.on('message', (request: RenderRequest) => {
  render(request).then(
    (reply) => process.send?.(reply),
    (error: unknown) => {
      const detail = error instanceof Error ? error.message : String(error);
      process.send?.({ id: request.id, ok: false, reason: wordsFor(detail), detail } satisfies RenderReply);
    },
  );
});
// The server went away: nothing is left to render for.
process.on('disconnect', () => process.exit(0));
// Told once this process listens: a message sent before would find no listener.
process.send?.({ ready: true });
