// What other features may use of storage limits: the upload check, the readings, the errors.
export { describeBytes } from './bytes.js';
export { CompanyQuotas, QuotaExceededError, type QuotaTarget } from './company-quotas.js';
export { QuotaRepository } from './quota.repository.js';
export { explainStorageFull, isStorageFull, LOW_STORAGE_MESSAGE, LowStorageError, STORAGE_FULL_MESSAGE } from './storage-errors.js';
export { readFreeSpace, requiredFree, StorageHeadroom, type FreeSpace, type FreeSpaceReader } from './storage-headroom.js';
export { UploadAllowance } from './upload-allowance.js';
