// Errors a client may see: a status and a message safe to show. Anything else becomes a 500.
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export const badRequest = (message = 'The data sent is not valid') => new AppError(400, message);
export const unauthorized = (message = 'Authentication required') => new AppError(401, message);
export const forbidden = (message = 'You do not have permission to perform this action') =>
  new AppError(403, message);
export const notFound = (message = 'Resource not found') => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);
export const unprocessable = (message: string) => new AppError(422, message);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(429, 'Too many failed login attempts. Try again later.', {
    'retry-after': String(retryAfterSeconds),
  });
