// The review's calls (issue 35): a project's arrival rules, a decision on a file, the inbox.
import {
  listResponse,
  ZProjectFile,
  ZReviewList,
  ZReviewRules,
  type TProjectFile,
  type TReviewDecision,
  type TReviewList,
  type TReviewRules,
  type TReviewState,
} from '@portal/contract';
import { keepPreviousData, queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../../api/query-keys';
import { api } from '../../../lib/api-answer';

const ZRulesAnswer = listResponse(ZReviewRules);
const ZFileAnswer = listResponse(ZProjectFile);
const rulesUrl = (projectId: number) => `/study-petitions/${projectId}/rules`;

export function useReviewRules(projectId: number) {
  return useQuery(
    queryOptions({
      queryKey: queryKeys.reviewRules(projectId),
      queryFn: async () => (await api.get(ZRulesAnswer, rulesUrl(projectId))).data[0] ?? null,
    }),
  );
}

/** SysUser and SysAdmin (403 for anyone else); the answer is the rules now in force. */
export function useSetReviewRules(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (rules: TReviewRules) => (await api.put(ZRulesAnswer, rulesUrl(projectId), rules)).data[0] ?? null,
    onSuccess: (rules) => {
      if (rules) queryClient.setQueryData(queryKeys.reviewRules(projectId), rules);
    },
  });
}

/** Accept or reject; the file lists and the inbox are read again afterwards. */
export function useDecide() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ fileId, body }: { fileId: number; body: TReviewDecision }): Promise<TProjectFile | null> =>
      (await api.post(ZFileAnswer, `/study-petitions-files/${fileId}/review`, body)).data[0] ?? null,
    onSettled: (file) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: ['review-inbox'] }),
        file ? queryClient.invalidateQueries({ queryKey: queryKeys.projectFiles(file.studypetitionid) }) : Promise.resolve(),
      ]),
  });
}

export interface InboxRequest {
  q: string;
  state: TReviewState | '';
  page: number;
  perPage: number;
}

export function useReviewInbox(request: InboxRequest) {
  return useQuery(
    queryOptions({
      queryKey: queryKeys.reviewInbox(request),
      queryFn: (): Promise<TReviewList> =>
        api.get(ZReviewList, '/review', {
          params: { ...(request.q ? { q: request.q } : {}), ...(request.state ? { state: request.state } : {}), page: request.page, per_page: request.perPage },
        }),
      placeholderData: keepPreviousData,
      // New arrivals show up while the reviewer looks at the list.
      refetchInterval: 15_000,
    }),
  );
}
