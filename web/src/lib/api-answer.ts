// The API's edge: every JSON answer the app uses is parsed here with the contract's schema, so a
// screen never renders a shape it does not know (a server and a page of different versions, a
// proxy's error page answered with 200). Blobs, tus requests and calls whose answer is not read
// go through apiClient itself.
import type { AxiosRequestConfig } from 'axios';
import { apiClient } from './api-client';

/** What a user reads when an answer is not the contract's shape (shown as 'Unexpected Error: …'). */
export const UNREADABLE_ANSWER = 'The server answered with data this page cannot read; reload the page and try again';

/** A zod schema as this edge needs it; structural, so the web app needs no zod import of its own. */
export interface AnswerSchema<T> {
  safeParse(data: unknown): { success: true; data: T } | { success: false; error: unknown };
}

/** An answer that is not the contract's shape. Its message is for people; the schema's issues are in `cause`. */
export class UnreadableAnswerError extends Error {
  constructor(
    readonly request: string,
    cause: unknown,
  ) {
    super(UNREADABLE_ANSWER, { cause });
    this.name = 'UnreadableAnswerError';
  }
}

/** The parsed answer, or an UnreadableAnswerError; the console (never the page) learns which call and why. */
export function readAnswer<T>(schema: AnswerSchema<T>, data: unknown, request: string): T {
  const answer = schema.safeParse(data);
  if (answer.success) return answer.data;
  // Spec §8 logs failed calls to the console; this one failed after its 2xx.
  console.error('Unreadable answer', request, answer.error);
  throw new UnreadableAnswerError(request, answer.error);
}

/** apiClient's JSON calls, each answer parsed with the schema the caller names. */
export const api = {
  async get<T>(schema: AnswerSchema<T>, url: string, config?: AxiosRequestConfig): Promise<T> {
    const { data } = await apiClient.get<unknown>(url, config);
    return readAnswer(schema, data, `GET ${url}`);
  },
  async post<T>(schema: AnswerSchema<T>, url: string, body?: unknown, config?: AxiosRequestConfig): Promise<T> {
    const { data } = await apiClient.post<unknown>(url, body, config);
    return readAnswer(schema, data, `POST ${url}`);
  },
  async put<T>(schema: AnswerSchema<T>, url: string, body?: unknown, config?: AxiosRequestConfig): Promise<T> {
    const { data } = await apiClient.put<unknown>(url, body, config);
    return readAnswer(schema, data, `PUT ${url}`);
  },
};
