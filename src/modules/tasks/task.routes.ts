import { crudRoutes, route } from "../../../rest/route-helpers.js";

export const taskRoutes = [
  ...crudRoutes({ resource: "tasks", idParam: "taskId", entity: "Task", tag: "Tasks" }),
  route({
    method: "POST",
    path: "/tasks/{taskId}/add-comment",
    operation: "mutation",
    field: "addTaskComment",
    args: { id: { from: "path", name: "taskId" }, commentText: { from: "bodyKey", name: "commentText" } },
    summary: "Append a comment ({authorId, captured, commentText}) to the task's comments",
    tag: "Tasks",
  }),
  route({
    method: "POST",
    path: "/tasks/create-from-filter",
    operation: "mutation",
    field: "createTasksFromFilter",
    args: { input: { from: "body" } },
    summary: "Create a task for every row of a result table a query and/or a saved filter (savedFilterId) select (up to limit), as one async job",
    tag: "Tasks",
  }),
  ...crudRoutes({ resource: "task-histories", idParam: "taskHistoryId", entity: "TaskHistory", plural: "taskHistories", tag: "Tasks", ops: ["read", "query"] }),
];
