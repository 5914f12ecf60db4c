import { listResponse, ZDelivery } from '@portal/contract';
import { api } from '../../../lib/api-answer';
import { apiClient } from '../../../lib/api-client';

const ZDeliveryAnswer = listResponse(ZDelivery);

/** A folder is sent as one delivery: opened before its files, completed once they have all arrived (docs/api.md). */
export interface DeliveryApi {
  /** `replaces`: the rejected file the delivery answers (issue 35). */
  open(projectId: number, name: string, replaces?: number): Promise<number>;
  /** True while the delivery still takes files: not completed, not expired, not another user's. */
  isOpen(deliveryId: number): Promise<boolean>;
  complete(deliveryId: number): Promise<void>;
}

export const deliveryApi: DeliveryApi = {
  async open(projectId, name, replaces) {
    const { data } = await api.post(ZDeliveryAnswer, '/deliveries', { studypetitionid: projectId, name, ...(replaces !== undefined && { replaces }) });
    const id = data[0]?.id;
    if (id === undefined) throw new Error('The server did not return the delivery');
    return id;
  },
  async isOpen(deliveryId) {
    try {
      const { data } = await api.get(ZDeliveryAnswer, `/deliveries/${deliveryId}`);
      return data[0]?.status === 'open';
    } catch {
      // Expired or gone (404), not reachable, or an answer this page cannot read: a new delivery is the safe way on.
      return false;
    }
  },
  async complete(deliveryId) {
    await apiClient.post(`/deliveries/${deliveryId}/complete`);
  },
};

/** A file's path inside its folder: webkitRelativePath without the folder's own name. */
export function pathInFolder(path: string): string {
  return path.split('/').slice(1).join('/');
}
