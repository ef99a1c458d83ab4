import "./task.schema.js";
import { defineFamily } from "../family.js";
import { registerEventPermission } from "../events/event-permissions.js";
import { taskRoutes } from "./task.routes.js";
import { createTasksJob } from "./task.bulk.js";

registerEventPermission("TASK", "api.tasks.read");

export const tasksFamily = defineFamily({
  name: "tasks",
  routes: taskRoutes,
  jobs: [createTasksJob],
  events: ["task.created", "task.updated", "task.deleted"],
});
