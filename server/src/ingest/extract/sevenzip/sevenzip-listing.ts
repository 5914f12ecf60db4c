// Reads 7-Zip's technical listing (`7zz l -slt`) line by line, so a huge listing never sits in memory whole.

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

export interface Listing {
  /** Files and links, in archive order, up to the cap given to the parser. */
  entries: ListedEntry[];
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
  private readonly listing: Listing = { entries: [], overflow: 0, errors: [], encrypted: false };
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
    return this.listing;
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
    if (this.listing.entries.length >= this.cap) {
      this.listing.overflow += 1;
      return;
    }
    this.listing.entries.push({
      rawPath,
      type,
      size: numberOrNull(props.get('Size')),
      packedSize: numberOrNull(props.get('Packed Size')),
      encrypted,
    });
  }
}
