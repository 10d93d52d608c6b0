/* hoisted-store-hazard: the store is to a local structure: low */
int shared;

int local_struct(void)
{
	struct pair st;

	if (READ_ONCE(shared) > 2) {
		st.x = 1;
		kick(&st);
	} else {
		st.x = 1;
	}
	return st.x;
}
