import { apiClient } from '../../../lib/api-client';

/** A folder is sent as one delivery: opened before its files, completed once they have all arrived (docs/api.md). */
export interface DeliveryApi {
  open(projectId: number, name: string): Promise<number>;
  complete(deliveryId: number): Promise<void>;
}

export const deliveryApi: DeliveryApi = {
  async open(projectId, name) {
    const { data } = await apiClient.post<{ data: Array<{ id: number }> }>('/deliveries', { studypetitionid: projectId, name });
    const id = data.data[0]?.id;
    if (id === undefined) throw new Error('The server did not return the delivery');
    return id;
  },
  async complete(deliveryId) {
    await apiClient.post(`/deliveries/${deliveryId}/complete`);
  },
};

/** A file's path inside its folder: webkitRelativePath without the folder's own name. */
export function pathInFolder(path: string): string {
  return path.split('/').slice(1).join('/');
}
