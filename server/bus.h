/* The in-memory broadcast that wakes SSE streams and workers. The events table is the truth;
 * the bus only says "something changed": a generation counter under a mutex and a condition
 * variable. A waiter reads the generation, checks the store, and waits for a newer
 * generation, so no change between the check and the wait is missed. */
#ifndef DT_SRV_BUS_H
#define DT_SRV_BUS_H

/* Announce a change (new event, new job, state change). */
void dt_bus_notify(void);
unsigned long dt_bus_generation(void);
/* Wait until the generation differs from gen, the bus is closed, or timeout_s passes.
 * Returns 1 if woken by a change, 0 on timeout, -1 if closed. */
int dt_bus_wait(unsigned long gen, double timeout_s);
/* Close the bus (shutdown): wakes every waiter; later waits return -1 at once. */
void dt_bus_close(void);
int dt_bus_closed(void);

#endif
