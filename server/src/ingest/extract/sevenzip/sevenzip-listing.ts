// Reads 7-Zip's technical listing (`7zz l -slt`) line by line, so a huge listing never sits in memory
// whole, and keeps its entries packed: one string of names and a few typed arrays, not an object
// per entry. 100,000 entries as objects cost the job's thread ~10 MB, and receiving them from the
// worker held its event loop for the time of 100,000 objects' deserialisation (3 s seen under load).

export type ListedType = 'file' | 'directory' | 'symlink' | 'hardlink' | 'special';

export interface ListedEntry {
  /** The name exactly as 7-Zip prints it (and as it must be given back in an include list). */
  rawPath: string;
  type: ListedType;
  /** Null when the format does not record it (solid 7z blocks, some single streams). */
  size: number | null;
  packedSize: number | null;
  encrypted: boolean;
}

const TYPES: readonly ListedType[] = ['file', 'directory', 'symlink', 'hardlink', 'special'];
const ENCRYPTED = 8;

/** Entries as they travel between threads: plain data, the typed arrays transferred. */
export interface PackedEntries {
  count: number;
  /** The raw names, each ended by a line feed (7-Zip lists line by line: no name holds one). */
  names: string;
  /** NaN where the listing gives none. */
  sizes: Float64Array<ArrayBuffer>;
  packedSizes: Float64Array<ArrayBuffer>;
  /** Index into TYPES, plus ENCRYPTED. */
  flags: Uint8Array<ArrayBuffer>;
}

const orNull = (n: number): number | null => (Number.isNaN(n) ? null : n);

/** The entries one at a time, each made only when it is reached. */
export function* unpackEntries(packed: PackedEntries): Generator<ListedEntry> {
  let from = 0;
  for (let i = 0; i < packed.count; i += 1) {
    const end = packed.names.indexOf('\n', from);
    const flags = packed.flags[i]!;
    yield {
      rawPath: packed.names.slice(from, end),
      type: TYPES[flags & (ENCRYPTED - 1)]!,
      size: orNull(packed.sizes[i]!),
      packedSize: orNull(packed.packedSizes[i]!),
      encrypted: (flags & ENCRYPTED) !== 0,
    };
    from = end + 1;
  }
}

/** Builds PackedEntries entry by entry, its arrays grown by doubling. */
class EntryPacker {
  #count = 0;
  #names: string[] = [];
  #chunks: string[] = [];
  #sizes = new Float64Array(1024);
  #packedSizes = new Float64Array(1024);
  #flags = new Uint8Array(1024);

  get count(): number {
    return this.#count;
  }

  add(entry: ListedEntry): void {
    if (this.#count === this.#flags.length) this.#grow();
    const i = this.#count++;
    this.#sizes[i] = entry.size ?? Number.NaN;
    this.#packedSizes[i] = entry.packedSize ?? Number.NaN;
    this.#flags[i] = TYPES.indexOf(entry.type) + (entry.encrypted ? ENCRYPTED : 0);
    this.#names.push(entry.rawPath, '\n');
    // Joined a thousand at a time: one string per name would be the object per entry again.
    if (this.#names.length >= 2000) this.#chunks.push(this.#names.splice(0).join(''));
  }

  finish(): PackedEntries {
    const n = this.#count;
    return {
      count: n,
      names: this.#chunks.join('') + this.#names.join(''),
      sizes: this.#sizes.slice(0, n),
      packedSizes: this.#packedSizes.slice(0, n),
      flags: this.#flags.slice(0, n),
    };
  }

  #grow(): void {
    const grown = <T extends Float64Array | Uint8Array>(from: T, make: (n: number) => T): T => {
      const to = make(from.length * 2);
      to.set(from);
      return to;
    };
    this.#sizes = grown(this.#sizes, (n) => new Float64Array(n));
    this.#packedSizes = grown(this.#packedSizes, (n) => new Float64Array(n));
    this.#flags = grown(this.#flags, (n) => new Uint8Array(n));
  }
}

export interface Listing {
  /** Files and links, in archive order, up to the cap given to the parser. */
  entries: PackedEntries;
  /** Non-directory entries seen beyond the cap. */
  overflow: number;
  /** 7-Zip's archive-level complaints: "ERROR: …" lines and the lines under "ERRORS:". */
  errors: string[];
  /** Whether any entry, or the archive's headers, are encrypted. */
  encrypted: boolean;
}

const MAX_ERRORS = 100;
const UNIX_MODE = /^[-dlcbps][-rwxsStT]{9}$/;

function numberOrNull(value: string | undefined): number | null {
  if (value === undefined || value.trim() === '') return null;
  const n = Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function typeOf(props: Map<string, string>): ListedType {
  const modeField = props.get('Mode') ?? props.get('Attributes') ?? '';
  const mode = modeField.split(' ').find((token) => UNIX_MODE.test(token)) ?? '';
  const kind = mode[0];
  if (kind === 'l' || (props.get('Symbolic Link') ?? '') !== '' || (props.get('Link') ?? '') !== '') return 'symlink';
  if ((props.get('Hard Link') ?? '') !== '') return 'hardlink';
  if (kind === 'c' || kind === 'b' || kind === 'p' || kind === 's') return 'special';
  if (props.get('Folder') === '+' || kind === 'd' || /^D/.test(props.get('Attributes') ?? '')) return 'directory';
  return 'file';
}

export class ListingParser {
  private readonly listing: Omit<Listing, 'entries'> = { overflow: 0, errors: [], encrypted: false };
  private readonly packer = new EntryPacker();
  private inEntries = false;
  private inErrorBlock = false;
  private block = new Map<string, string>();

  constructor(private readonly cap: number) {}

  push(line: string): void {
    if (line.startsWith('ERROR:') || line.startsWith('Open ERROR:')) {
      this.addError(line);
      if (/encrypted/i.test(line)) this.listing.encrypted = true;
      return;
    }
    if (line === '----------') {
      this.inEntries = true;
      return;
    }
    if (!this.inEntries) {
      if (line === 'ERRORS:' || line === 'WARNINGS:') this.inErrorBlock = line === 'ERRORS:';
      else if (line.includes(' = ') || line === '') this.inErrorBlock = false;
      else if (this.inErrorBlock) this.addError(line);
      return;
    }
    if (line === '') {
      this.flush();
      return;
    }
    const at = line.indexOf(' = ');
    if (at > 0) this.block.set(line.slice(0, at), line.slice(at + 3));
    else if (line.endsWith(' =')) this.block.set(line.slice(0, -2), '');
  }

  finish(): Listing {
    this.flush();
    return { ...this.listing, entries: this.packer.finish() };
  }

  private addError(line: string): void {
    if (this.listing.errors.length < MAX_ERRORS) this.listing.errors.push(line);
  }

  private flush(): void {
    const props = this.block;
    this.block = new Map();
    const rawPath = props.get('Path');
    if (rawPath === undefined) return;
    const type = typeOf(props);
    if (type === 'directory') return;
    const encrypted = props.get('Encrypted') === '+';
    if (encrypted) this.listing.encrypted = true;
    if (this.packer.count >= this.cap) {
      this.listing.overflow += 1;
      return;
    }
    this.packer.add({
      rawPath,
      type,
      size: numberOrNull(props.get('Size')),
      packedSize: numberOrNull(props.get('Packed Size')),
      encrypted,
    });
  }
}
