// E-mail, when SMTP_URL and MAIL_FROM are set (nodemailer). Without them the portal sends nothing
// and every caller carries on: a reset link is still shown to the admin who made it.
import nodemailer from 'nodemailer';

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
  const transport = nodemailer.createTransport(settings.smtpUrl);
  return {
    async send(message) {
      if (message.to.length === 0) return;
      await transport.sendMail({ from: settings.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
