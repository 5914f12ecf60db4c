// Writers for archive layouts no installed tool produces: tar device entries, RAR 4, zips that lie.

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

export interface TarMember {
  name: string;
  /** '0' file, '2' symlink, '3' character device, '4' block device, '6' FIFO. */
  type: '0' | '2' | '3' | '4' | '6';
  data?: Buffer;
  /** A size for the header other than the data's: headers can claim what the data is not. */
  claimedSize?: number;
  link?: string;
}

/** A ustar archive; bsdtar refuses to archive device nodes an unprivileged test cannot create. */
export function ustar(members: readonly TarMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const data = m.data ?? Buffer.alloc(0);
    const header = Buffer.alloc(512);
    header.write(m.name, 0, 100, 'utf8');
    header.write(octal(0o644, 8), 100, 'latin1');
    header.write(octal(0, 8), 108, 'latin1');
    header.write(octal(0, 8), 116, 'latin1');
    header.write(octal(m.type === '0' ? (m.claimedSize ?? data.length) : 0, 12), 124, 'latin1');
    header.write(octal(0, 12), 136, 'latin1');
    header.write('        ', 148, 'latin1');
    header.write(m.type, 156, 'latin1');
    if (m.link !== undefined) header.write(m.link, 157, 100, 'utf8');
    header.write('ustar\u000000', 257, 'latin1');
    header.write(octal(1, 8), 329, 'latin1');
    header.write(octal(3, 8), 337, 'latin1');
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(octal(sum, 7) + ' ', 148, 'latin1');
    blocks.push(header);
    if (m.type === '0') blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** RAR 4 block: CRC16 is the low half of the CRC32 of everything after the CRC field. */
function rarBlock(type: number, flags: number, fields: Buffer, extra: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(7);
  head.writeUInt8(type, 2);
  head.writeUInt16LE(flags, 3);
  head.writeUInt16LE(7 + fields.length, 5);
  const body = Buffer.concat([head.subarray(2), fields]);
  head.writeUInt16LE(crc32(body) & 0xffff, 0);
  return Buffer.concat([head, fields, extra]);
}

/**
 * A RAR 4 archive with "stored" (method 0x30) files: no RAR writer installs here, and real DICOM
 * inside a RAR is what users send. Layout per the RAR 4 technote (marker, main header, file headers).
 */
export function rar4Stored(files: readonly { name: string; data: Buffer }[]): Buffer {
  const parts: Buffer[] = [Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00])];
  parts.push(rarBlock(0x73, 0, Buffer.alloc(6)));
  for (const file of files) {
    const name = Buffer.from(file.name, 'latin1');
    const fields = Buffer.alloc(25);
    fields.writeUInt32LE(file.data.length, 0);
    fields.writeUInt32LE(file.data.length, 4);
    fields.writeUInt8(3, 8); // host OS: Unix
    fields.writeUInt32LE(crc32(file.data), 9);
    fields.writeUInt32LE(0x5a210000, 13); // DOS time
    fields.writeUInt8(20, 17); // version needed
    fields.writeUInt8(0x30, 18); // method: store
    fields.writeUInt16LE(name.length, 19);
    fields.writeUInt32LE(0o100644, 21);
    // 0x8000: the block carries data (ADD_SIZE); the packed size field above is its length.
    parts.push(rarBlock(0x74, 0x8000, Buffer.concat([fields, name]), file.data));
  }
  parts.push(rarBlock(0x7b, 0x4000, Buffer.alloc(0)));
  return Buffer.concat(parts);
}

const CENTRAL_HEADER = Buffer.from([0x50, 0x4b, 0x01, 0x02]);

/** Rewrites the uncompressed size a zip's central directory states for `name`. */
export function understate(zip: Buffer, name: string, size: number): Buffer {
  for (let at = zip.indexOf(CENTRAL_HEADER); at >= 0; at = zip.indexOf(CENTRAL_HEADER, at + 4)) {
    const nameLength = zip.readUInt16LE(at + 28);
    if (zip.subarray(at + 46, at + 46 + nameLength).toString() === name) {
      zip.writeUInt32LE(size, at + 24);
      return zip;
    }
  }
  throw new Error(`${name} is not in the central directory`);
}
