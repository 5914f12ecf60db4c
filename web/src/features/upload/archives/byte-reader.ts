/** Reads a byte stream in exact amounts, as a tar's headers and members need. */
export class ByteReader {
  private chunk: Uint8Array = new Uint8Array(0);
  private at = 0;
  private done = false;

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  private async fill(): Promise<boolean> {
    while (this.at >= this.chunk.length) {
      if (this.done) return false;
      const { value, done } = await this.reader.read();
      if (done) {
        this.done = true;
        return false;
      }
      this.chunk = value;
      this.at = 0;
    }
    return true;
  }

  /** Hands on `n` bytes (or fewer at the stream's end) in the pieces they arrive in; returns how many. */
  async pass(n: number, sink: (piece: Uint8Array) => void): Promise<number> {
    let left = n;
    while (left > 0 && (await this.fill())) {
      const piece = this.chunk.subarray(this.at, this.at + left);
      this.at += piece.length;
      left -= piece.length;
      sink(piece);
    }
    return n - left;
  }

  /** `n` bytes as one array (for headers and the first bytes of a member). */
  async take(n: number): Promise<Uint8Array> {
    const out = new Uint8Array(n);
    let filled = 0;
    await this.pass(n, (piece) => {
      out.set(piece, filled);
      filled += piece.length;
    });
    return out.subarray(0, filled);
  }

  cancel(): void {
    void this.reader.cancel().catch(() => undefined);
  }
}

/** A Blob as a stream of 1 MiB slices: the same in every browser and in jsdom (whose Blob has no stream()). */
export function sliceStream(blob: Blob, sliceBytes = 1024 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (at >= blob.size) {
        controller.close();
        return;
      }
      const end = Math.min(blob.size, at + sliceBytes);
      controller.enqueue(new Uint8Array(await blob.slice(at, end).arrayBuffer()));
      at = end;
    },
  });
}
