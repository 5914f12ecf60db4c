// The renderer's own process (forked by renderer.ts): one DICOM instance in, a WebP of at most
// 256 px on its long side out, or the reason in words why not. It imports nothing of the server's,
// so that a crash here (a broken file has crashed dcmjs-imaging's decoder; a native fault in
// libvips) ends this process only.
import * as imaging from 'dcmjs-imaging';
import sharp from 'sharp';

// A minified UMD bundle: Node's ES import sees only its default export, whatever its types say.
const { DicomImage, NativePixelDecoder } = (imaging as unknown as { default?: typeof imaging }).default ?? imaging;

export interface RenderRequest {
  id: number;
  bytes: Uint8Array;
}

export type RenderAnswer = { id: number; image: Uint8Array } | { id: number; reason: string };

const LONG_SIDE = 256;
const NO_IMAGE = 'This series has no image to show';
const CANNOT_DRAW = "This image's compression cannot be drawn here";

let decoder: Promise<void> | null = null;

const DEFLATED = Buffer.from('1.2.840.10008.1.2.1.99');
const PIXEL_DATA_LE = Buffer.from([0xe0, 0x7f, 0x10, 0x00]);
const PIXEL_DATA_BE = Buffer.from([0x7f, 0xe0, 0x00, 0x10]);

/**
 * Pixel Data (7FE0,0010) written anywhere in the bytes, in either byte order; an RT Plan or a
 * structured report has none. Searched as bytes, not parsed (the renderer is the parser here); a
 * deflated dataset hides its tags, so the renderer is asked.
 */
function mayHavePixelData(bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const head = buffer.subarray(0, 1024);
  return head.includes(DEFLATED) || buffer.includes(PIXEL_DATA_LE) || buffer.includes(PIXEL_DATA_BE);
}

async function render(bytes: Uint8Array): Promise<{ image: Uint8Array } | { reason: string }> {
  if (!mayHavePixelData(bytes)) return { reason: NO_IMAGE };
  decoder ??= NativePixelDecoder.initializeAsync();
  await decoder;
  let drawn: { width: number; height: number; pixels: ArrayBuffer };
  try {
    const image = new DicomImage(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
    const frames = image.getNumberOfFrames();
    drawn = image.render({ frame: Math.floor(Math.max(frames, 1) / 2) });
  } catch {
    return { reason: CANNOT_DRAW };
  }
  if (drawn.width < 1 || drawn.height < 1) return { reason: NO_IMAGE };
  const webp = await sharp(new Uint8Array(drawn.pixels), { raw: { width: drawn.width, height: drawn.height, channels: 4 } })
    .resize(LONG_SIDE, LONG_SIDE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 80 })
    .toBuffer();
  return { image: new Uint8Array(webp) };
}

process.on('message', (message: RenderRequest) => {
  // Test hook: a renderer that dies mid-render, as a broken file once made it.
  if (process.env.PORTAL_THUMBNAIL_RENDERER_CRASH === '1') process.exit(70);
  render(message.bytes).then(
    (answer) => process.send?.({ id: message.id, ...answer } satisfies RenderAnswer),
    () => process.send?.({ id: message.id, reason: CANNOT_DRAW } satisfies RenderAnswer),
  );
});
