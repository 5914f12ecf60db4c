// A real SMTP server (smtp-server) on a loopback port, keeping what it receives for tests to read.
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  to: string[];
  /** The message as sent, quoted-printable soft breaks and escapes undone. */
  text: string;
}

export interface TestSmtp {
  url: string;
  received: ReceivedMail[];
  /** Waits until `count` messages have arrived. */
  waitFor(count: number): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

export async function startTestSmtp(): Promise<TestSmtp> {
  const received: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')) });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    async waitFor(count) {
      for (let i = 0; i < 200 && received.length < count; i += 1) await new Promise((r) => setTimeout(r, 25));
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
