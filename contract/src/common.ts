// Shapes every resource shares: the error body, the {data} envelope, and the finding parameters
// and page of searched, paged lists.
import { z } from './zod.js';
import { oneOf, single, wholeNumber } from './fields.js';

export const ZErrorBody = z.object({ message: z.string() });
export const ZMessageResponse = z.object({ data: z.object({ message: z.string() }) });

/** Lists and single objects travel as {data: [...]} (DESIGN §4); login's answer alone is bare. */
export const listResponse = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/**
 * Finding things (issue 14, item 6): the files table and the project's studies are searched,
 * sorted, filtered and paged by the server. `page` is 1-based; the answer's `page.total` counts
 * every match, not only this page.
 */
export const LIST_PER_PAGE_DEFAULT = 25;
export const LIST_PER_PAGE_MAX = 500;
export const LIST_PAGE_MAX = 1_000_000;
export const LIST_Q_MAX = 200;

export const ZSortOrder = z.enum(['asc', 'desc']);
export type TSortOrder = z.infer<typeof ZSortOrder>;

export const ZListPage = z.object({ page: z.number().int(), per_page: z.number().int(), total: z.number().int() });
export type TListPage = z.infer<typeof ZListPage>;

/** The finding parameters every searched, paged list takes (q, order, page, per_page). */
export const listParams = {
  q: single('must be given once, as text')
    .pipe(z.string().max(LIST_Q_MAX, { error: `must be at most ${LIST_Q_MAX} characters` }))
    .meta({ type: 'string', maxLength: LIST_Q_MAX, description: 'A substring to find; letters without case, % and _ match themselves' })
    .optional(),
  order: oneOf(['asc', 'desc'], 'must be asc or desc').optional(),
  page: wholeNumber(1, LIST_PAGE_MAX, 'must be a whole number from 1').meta({ description: '1-based page number (default 1)' }).optional(),
  per_page: wholeNumber(1, LIST_PER_PAGE_MAX, `must be a whole number from 1 to ${LIST_PER_PAGE_MAX}`)
    .meta({ description: `Rows per page (default ${LIST_PER_PAGE_DEFAULT})` })
    .optional(),
};
