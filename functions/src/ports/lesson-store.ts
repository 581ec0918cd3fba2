import type { Lesson } from "../domain/lesson.js";

/** Lessons from disputed verdicts, recalled by finding category for later planners. */
export interface LessonStore {
  /** Stores the lesson unless one with its id exists; true when it was new. */
  add(lesson: Lesson): Promise<boolean>;
  /** The newest lessons for findings of this category. */
  forCategory(category: string, limit: number): Promise<Lesson[]>;
}
