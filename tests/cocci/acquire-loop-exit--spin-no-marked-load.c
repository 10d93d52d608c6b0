/* acquire-loop-exit: a spin loop on a function's result: reported, low */
static void spin_on_call(struct obj *o)
{
	while (!obj_ready(o))
		cpu_relax();
	smp_acquire__after_ctrl_dep();
}
