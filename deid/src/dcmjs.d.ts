// The part of dcmjs this package uses (dcmjs ships no types).
declare module 'dcmjs' {
  export interface Element {
    vr: string;
    Value?: unknown[];
    _rawValue?: unknown;
    InlineBinary?: string;
  }
  export type Dict = Record<string, Element>;
  export class DicomDict {
    constructor(meta: Dict);
    meta: Dict;
    dict: Dict;
    write(options?: { allowInvalidVRLength?: boolean; fragmentMultiframe?: boolean }): ArrayBuffer;
  }
  export interface ReadOptions {
    ignoreErrors?: boolean;
    untilTag?: string | null;
    includeUntilTagValue?: boolean;
    noCopy?: boolean;
    forceStoreRaw?: boolean;
  }
  export class ReadBufferStream {
    constructor(buffer: ArrayBuffer, littleEndian?: boolean | null, options?: { noCopy?: boolean });
    size: number;
    getBuffer(start: number, end: number): ArrayBuffer;
  }
  const dcmjs: {
    data: {
      DicomDict: typeof DicomDict;
      DicomMessage: { readFile(buffer: ArrayBuffer, options?: ReadOptions): DicomDict };
      ReadBufferStream: typeof ReadBufferStream;
      DeflatedReadBufferStream: new (stream: ReadBufferStream, options?: { noCopy?: boolean }) => ReadBufferStream;
    };
    log: { setLevel(level: string): void; getLogger?(name: string): { setLevel(level: string): void } };
  };
  export default dcmjs;
}
