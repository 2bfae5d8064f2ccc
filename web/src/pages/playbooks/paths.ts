export const PLAYBOOKS_PATH = '/playbooks';
export const playbookPath = (id: string) => `${PLAYBOOKS_PATH}/${id}`;
export const NEW_PLAYBOOK_PATH = playbookPath('new');
export const RUNS_PATH = `${PLAYBOOKS_PATH}/runs`;
/** The runs, of one playbook when given (spec part 2, 2.9). */
export const runsPath = (playbookId?: string) => (playbookId ? `${RUNS_PATH}?playbook=${playbookId}` : RUNS_PATH);
export const runPath = (runId: string) => `${RUNS_PATH}/${runId}`;
