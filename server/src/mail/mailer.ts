// E-mail, when SMTP_URL and MAIL_FROM are set (nodemailer). Without them the portal sends nothing
// and every caller carries on: a reset link is still shown to the admin who made it. nodemailer is
// loaded only when configured: a portal without SMTP never pays its memory.

export interface MailMessage {
  to: string[];
  subject: string;
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export function createMailer(settings: { smtpUrl: string; from: string } | undefined): Mailer | undefined {
  if (!settings) return undefined;
  const transport = import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(settings.smtpUrl));
  // A failure to load is reported by the first send, to the caller that handles mail failures.
  transport.catch(() => undefined);
  return {
    async send(message) {
      if (message.to.length === 0) return;
      await (await transport).sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
