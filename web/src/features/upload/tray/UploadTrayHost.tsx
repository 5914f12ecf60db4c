import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { queryKeys } from '../../../api/query-keys';
import { useNotify } from '../../../components/use-notify';
import { useLeaveGuard } from '../use-upload-queue';
import { resumePicked } from './resume-picked';
import { SessionDrivers } from './SessionDrivers';
import { currentUserId, forgetUnfinished, listUnfinished, unfinishedId, type UnfinishedUpload } from './unfinished-store';
import { UploadSessions } from './upload-sessions';
import type { UploadsSlot } from './uploads-slot';
import { UploadTray } from './UploadTray';
import { useTrayState, type TraySession } from './use-tray-state';

function notLive(stored: UnfinishedUpload[], state: readonly TraySession[], userId: number | null): UnfinishedUpload[] {
  const live = new Set(state.flatMap(({ session, snapshot }) => snapshot.rows.map((r) => unfinishedId(userId, session.projectId, r.key))));
  return stored.filter((u) => !live.has(u.id));
}

/**
 * The upload chunk's half of the signed-in frame: the sessions, their de-identification, the leave
 * guard and the tray. It drives the slot's sessions, whoever made them: sessions of its own, made
 * while a dialog's effect filled the slot first, would leave that dialog's session without a
 * de-identification driver, and its picks waiting for ever (seen after a reload in e2e).
 */
export default function UploadTrayHost({ slot }: { slot: UploadsSlot }) {
  const sessions = useSyncExternalStore(slot.subscribe, slot.get);
  useEffect(() => {
    slot.ensure(() => new UploadSessions());
  }, [slot]);
  return sessions && <TrayHost sessions={sessions} />;
}

function TrayHost({ sessions }: { sessions: UploadSessions }) {
  const queryClient = useQueryClient();
  const notify = useNotify();
  useEffect(() => {
    sessions.onSettledInBackground((session, rows) => {
      const done = rows.filter((r) => r.status === 'done');
      if (done.length === 0) return;
      void queryClient.invalidateQueries({ queryKey: queryKeys.projectFiles(session.projectId) });
      if (done.length === rows.length) notify.success('Files uploaded successfully');
    });
  }, [sessions, queryClient, notify]);

  const state = useTrayState(sessions);
  useLeaveGuard(state.some((s) => s.snapshot.active));

  const [stored, setStored] = useState<UnfinishedUpload[]>([]);
  const reload = useCallback(() => listUnfinished(currentUserId()).then(setStored), []);
  useEffect(() => {
    void reload();
  }, [reload]);
  // What this page is sending is shown as it goes; the list is what only the browser's memory knows of.
  // Read once a render and only when something is remembered: the user's id comes from localStorage,
  // and reading it for each of 2,000 rows on every progress event held the page for 0.1 s.
  const remembered = stored.length === 0 ? stored : notLive(stored, state, currentUserId());

  return (
    <>
      <SessionDrivers sessions={sessions} />
      <UploadTray
        sessions={state}
        remembered={remembered}
        onPicked={async (files, folder) => {
          const resumed = await resumePicked(sessions, remembered, files, folder);
          await reload();
          return resumed;
        }}
        onForget={() => {
          void forgetUnfinished(remembered.map((u) => u.id)).then(reload);
        }}
        onDismiss={() => {
          sessions.dismissIdle();
          // What finished here was forgotten in the store meanwhile: the list is read again, not kept.
          void reload();
        }}
      />
    </>
  );
}
