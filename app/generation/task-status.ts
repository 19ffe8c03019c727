import type { ClientTask } from '#domain/generation/task-view.ts'

/** Queued or running: the task still changes (the store follows it, the pages show its progress). */
export const isActive = (task: Pick<ClientTask, 'status'>) => task.status === 'queued' || task.status === 'processing'

/** A task's state as the sidebar and the result panel word it (spec section 4). */
export function taskStatusText(task: Pick<ClientTask, 'status' | 'type' | 'queuePosition' | 'totalInQueue'>) {
  switch (task.status) {
    case 'queued':
      return task.queuePosition
        ? `In Queue ${task.queuePosition}/${task.totalInQueue ?? task.queuePosition}`
        : 'In Queue'
    case 'processing':
      return task.type === 'video' ? 'Generating Video...' : 'Generating Image...'
    case 'completed':
      return 'Completed'
    case 'failed':
      return 'Failed'
  }
}
