//! `rq->cfs_tasks`, the runqueue's list of its CFS tasks, as a vector, head first (most
//! recently picked or enqueued first; `detach_tasks()` walks it from the tail).
//!
//! A runqueue holds a few tasks, so each list operation moves them one by one:
//! `Vec::insert(0, _)` and `Vec::remove` called `memmove` for as few as one element (0.8% of a
//! 96-CPU tbench run under callgrind, plus the calls).

use super::TaskId;

/// `list_add(&se->group_node, &rq->cfs_tasks)`: `t` at the head.
pub(super) fn list_add_head(list: &mut Vec<TaskId>, t: TaskId) {
    list.push(t);
    let n = list.len();
    list_rotate_to_head(list, n - 1);
}

/// `list_del_init(&se->group_node)`: `t` out of the list, if it is there.
pub(super) fn list_del(list: &mut Vec<TaskId>, t: TaskId) {
    if let Some(pos) = list.iter().position(|&x| x == t) {
        for i in pos..list.len() - 1 {
            list[i] = list[i + 1];
        }
        list.pop();
    }
}

/// `list_move(&se->group_node, &rq->cfs_tasks)`: `t` to the head (added if absent).
pub(super) fn list_move_head(list: &mut Vec<TaskId>, t: TaskId) {
    match list.iter().position(|&x| x == t) {
        Some(pos) => list_rotate_to_head(list, pos),
        None => list_add_head(list, t),
    }
}

/// Moves `list[pos]` to the head, the elements before it one place down.
fn list_rotate_to_head(list: &mut [TaskId], pos: usize) {
    let t = list[pos];
    for i in (1..=pos).rev() {
        list[i] = list[i - 1];
    }
    list[0] = t;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each operation leaves the list as the kernel's list would be: added at the head, moved
    /// to the head keeping the others' order, deleted keeping the others' order.
    #[test]
    fn cfs_tasks_keeps_list_order() {
        let mut l = Vec::new();
        for t in [1, 2, 3, 4] {
            list_add_head(&mut l, t);
        }
        assert_eq!(l, [4, 3, 2, 1]);
        list_move_head(&mut l, 2);
        assert_eq!(l, [2, 4, 3, 1]);
        list_move_head(&mut l, 2);
        assert_eq!(l, [2, 4, 3, 1]);
        list_move_head(&mut l, 1);
        assert_eq!(l, [1, 2, 4, 3]);
        list_move_head(&mut l, 9);
        assert_eq!(l, [9, 1, 2, 4, 3]);
        list_del(&mut l, 2);
        assert_eq!(l, [9, 1, 4, 3]);
        list_del(&mut l, 3);
        assert_eq!(l, [9, 1, 4]);
        list_del(&mut l, 9);
        assert_eq!(l, [1, 4]);
        list_del(&mut l, 7);
        assert_eq!(l, [1, 4]);
    }
}
